"""The broker's second listener with a proxy in front: clients of the proxy stay behind it (the
listener advertises the proxy), a cut stops them, a restore lets them on; the broker's own
port is not affected."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka import KafkaConsumer
from kafka.errors import KafkaError

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.cli import check_args, main_parser
from launch.ports import free_port
from scenarios.engine.faults.tcp_proxy import TcpProxy
from spark_app.source.kafka_client import TopicClient
from tests.spark_app.kafka_helpers import create_topic, send_counter


def test_clients_of_the_proxy_are_cut_and_restored(tmp_path: Path) -> None:
    port, second, proxy_port = free_port(), free_port(), free_port()
    settings = BrokerSettings(
        port=port, data_dir=tmp_path / "kafka", second_listener=f"{second}=127.0.0.1:{proxy_port}"
    )
    with EmbeddedBroker(settings), TcpProxy(proxy_port, ("127.0.0.1", second)) as proxy:
        create_topic(f"127.0.0.1:{port}")
        send_counter(f"127.0.0.1:{port}", range(1, 4))
        behind = KafkaConsumer(bootstrap_servers=f"127.0.0.1:{proxy_port}", group_id=None)
        try:
            behind.topics()
            brokers = behind._client.cluster.brokers()
            assert [(b.host, b.port) for b in brokers] == [("127.0.0.1", proxy_port)]
        finally:
            behind.close()
        with TopicClient(f"127.0.0.1:{proxy_port}", timeout_sec=5) as kafka:
            assert kafka.latest("Experience") == {("Experience", 0): 3}
            proxy.cut()
            with pytest.raises(KafkaError):
                kafka.consumer.end_offsets([_tp()], timeout_ms=1500)
            send_counter(f"127.0.0.1:{port}", range(4, 6))  # the direct listener still serves
            proxy.restore()
            assert kafka.latest("Experience") == {("Experience", 0): 5}


def _tp():  # kafka-python's TopicPartition for the raw consumer call
    from kafka import TopicPartition

    return TopicPartition("Experience", 0)


def test_a_malformed_second_listener_is_one_line() -> None:
    args = main_parser().parse_args(["--second-listener", "19000:127.0.0.1"])
    assert "--second-listener must be PORT=HOST:PORT" in (check_args(args) or "")


def test_a_cut_with_no_client_waiting_can_be_restored_at_once() -> None:
    """No connection comes during the cut (the app died at it, as on hdfs): the accept thread
    must not keep the port listening, or restore() fails with EADDRINUSE."""
    import socket as _socket

    from launch.ports import free_port
    from scenarios.engine.faults.tcp_proxy import TcpProxy

    with _socket.socket() as target:
        target.bind(("127.0.0.1", 0))
        target.listen(1)
        with TcpProxy(free_port(), target.getsockname()) as proxy:
            for _ in range(3):
                proxy.cut()
                proxy.restore()
            with _socket.create_connection(("127.0.0.1", proxy.listen_port), timeout=5):
                pass
