"""The producer's and the broker's settings render themselves as their command lines, and the
CLIs read back the same settings: scenarios and the demo build settings, never flags."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from kafka_app.broker import cli as broker_cli
from kafka_app.broker.settings import BrokerSettings
from kafka_app.cli import main_parser
from kafka_app.settings import ProducerAppSettings

PRODUCER_CHANGED = {
    "bootstrap_servers": "127.0.0.1:19092",
    "host": "0.0.0.0",
    "port": 19093,
    "data_dir": Path("/tmp/data"),
    "topic": "Other",
    "partitions": 3,
    "grow_partitions": True,
    "replication_factor": 3,
    "retention_sec": 3600.0,
    "acks": "1",
    "send_timeout_sec": 90.0,
    "first_value": 42,
    "records": Path("my-records.jsonl"),
    "segment_sec": 2.5,
    "segment_bytes": 2_000_000,
    "retention_check_sec": 1.0,
    "retention_initial_delay_sec": 0.0,
    "interval_sec": 0.5,
    "count": 10,
    "burst": True,
    "log_dir": Path("/tmp/log"),
}
BROKER_CHANGED = {
    "host": "0.0.0.0",
    "port": 19094,
    "data_dir": Path("/tmp/data"),
    "retention_check_sec": 1.0,
    "retention_initial_delay_sec": 0.0,
    "max_frame_bytes": 1024,
    "auto_create_topics": True,
    "default_partitions": 2,
    "log_dir": Path("/tmp/log"),
    "connections_max_idle_ms": 1500,
    "second_listener": "19099=127.0.0.1:19100",
    "group_initial_rebalance_delay_ms": 0,
    "max_connections": 50,
    "max_partitions": 300,
}


def producer_round_trip(settings: ProducerAppSettings) -> ProducerAppSettings:
    given = {
        k: v for k, v in vars(main_parser().parse_args(settings.to_argv())).items() if v is not None
    }
    return ProducerAppSettings(**given)


def broker_round_trip(settings: BrokerSettings) -> BrokerSettings:
    args = broker_cli.main_parser().parse_args(settings.to_argv())
    assert broker_cli.check_args(args) is None
    return broker_cli.settings_from_args(args)


def test_every_field_is_covered() -> None:
    assert {f.name for f in fields(ProducerAppSettings)} == set(PRODUCER_CHANGED)
    assert {f.name for f in fields(BrokerSettings)} == set(BROKER_CHANGED)


def test_defaults_are_no_flags() -> None:
    assert ProducerAppSettings().to_argv() == [] and BrokerSettings().to_argv() == []
    assert producer_round_trip(ProducerAppSettings()) == ProducerAppSettings()
    assert broker_round_trip(BrokerSettings()) == BrokerSettings()


@pytest.mark.parametrize("name", sorted(PRODUCER_CHANGED))
def test_each_producer_field_survives_the_command_line(name: str) -> None:
    settings = replace(ProducerAppSettings(), **{name: PRODUCER_CHANGED[name]})
    assert producer_round_trip(settings) == settings


@pytest.mark.parametrize("name", sorted(BROKER_CHANGED))
def test_each_broker_field_survives_the_command_line(name: str) -> None:
    settings = replace(BrokerSettings(), **{name: BROKER_CHANGED[name]})
    assert broker_round_trip(settings) == settings


def test_all_fields_at_once() -> None:
    assert producer_round_trip(ProducerAppSettings(**PRODUCER_CHANGED)) == ProducerAppSettings(
        **PRODUCER_CHANGED
    )
    assert broker_round_trip(BrokerSettings(**BROKER_CHANGED)) == BrokerSettings(**BROKER_CHANGED)
