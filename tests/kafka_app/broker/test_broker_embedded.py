"""EmbeddedBroker as a resource: idempotent start/stop, a temporary data folder, typed errors."""

from __future__ import annotations

import socket

import pytest

from kafka_app.broker import BrokerSettings, EmbeddedBroker, PortInUse


def test_start_and_stop_are_idempotent_and_temp_data_goes_away() -> None:
    broker = EmbeddedBroker(BrokerSettings(port=0))
    broker.start()
    broker.start()
    data_dir = broker.data_dir
    assert broker.bootstrap_servers == f"127.0.0.1:{broker.port}"
    assert data_dir.is_dir()
    broker.stop()
    broker.stop()
    assert not data_dir.exists(), "the temporary data folder outlived the broker"


def test_given_data_dir_is_kept(tmp_path) -> None:
    with EmbeddedBroker(BrokerSettings(port=0, data_dir=tmp_path / "kept")) as broker:
        broker.call(broker.storage.create_topic, "stays", 1, {})
    with EmbeddedBroker(BrokerSettings(port=0, data_dir=tmp_path / "kept")) as broker:
        assert broker.call(broker.storage.topics) == {"stays": 1}


def test_port_in_use_raises_a_typed_error(free_port) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port))
        taken.listen()
        with pytest.raises(PortInUse, match=f"port {free_port}.*--port"):
            EmbeddedBroker(BrokerSettings(port=free_port)).start()


def test_settings_refuse_nonsense() -> None:
    with pytest.raises(ValueError):
        BrokerSettings(port=70_000)
    with pytest.raises(ValueError):
        BrokerSettings(retention_check_sec=0)
