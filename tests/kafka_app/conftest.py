"""The broker tests' own `embedded_broker`: the shared one, but new groups rebalance at once.

Kafka's group.initial.rebalance.delay.ms (3 s, the broker's default) would add 3 s to every test
whose consumer subscribes; test_groups_initial_delay.py runs the delay itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_app.broker import BrokerSettings, EmbeddedBroker


@pytest.fixture
def embedded_broker(tmp_path: Path, free_port: int) -> Iterator[EmbeddedBroker]:
    settings = BrokerSettings(port=free_port, data_dir=tmp_path / "kafka-data",
                              retention_check_sec=1, retention_initial_delay_sec=0,
                              group_initial_rebalance_delay_ms=0)
    with EmbeddedBroker(settings) as broker:
        yield broker
