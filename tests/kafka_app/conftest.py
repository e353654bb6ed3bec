"""The broker tests' own `embedded_broker`: the shared one, but new groups rebalance at once.

Kafka's group.initial.rebalance.delay.ms (3 s, the broker's default) would add 3 s to every test
whose consumer subscribes; test_groups_initial_delay.py runs the delay itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_app.broker import EmbeddedBroker
from tests.kafka_app.broker.broker_helpers import quick_broker_settings


@pytest.fixture
def embedded_broker(tmp_path: Path, free_port: int) -> Iterator[EmbeddedBroker]:
    with EmbeddedBroker(quick_broker_settings(free_port, tmp_path / "kafka-data")) as broker:
        yield broker
