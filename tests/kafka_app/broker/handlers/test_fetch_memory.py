"""The broker-wide cap on fetched bytes in memory: a fetch that finds the cap taken gets a smaller
(still valid) answer of at least one batch, kafka.log says why, and the bytes are freed once the
answer is written."""

from __future__ import annotations

import logging

import pytest

from kafka_app.broker.handlers.fetch_memory import FetchMemory
from tests.kafka_app.broker.handlers.test_broker_fetch import (
    _batch_count,
    _fetch,
    _three_batches_per_partition,
)


def test_a_lease_holds_room_until_released() -> None:
    memory = FetchMemory(limit_bytes=100)
    first, second = memory.lease(), memory.lease()
    first.hold(80)
    assert second.allowance(50) == 20
    first.release()
    assert second.allowance(50) == 50 and memory.in_flight == 0


def test_a_fetch_past_the_cap_gets_one_batch_and_the_room_comes_back(
    embedded_broker, caplog: pytest.LogCaptureFixture
) -> None:
    _three_batches_per_partition(embedded_broker.bootstrap_servers, "capped")
    # The running broker's own FetchMemory: filled by a lease no answer will ever release.
    memory = embedded_broker.call(lambda: embedded_broker._require_server().ctx.fetch_memory)
    other = memory.lease()
    embedded_broker.call(other.hold, memory.limit_bytes)
    with caplog.at_level(logging.INFO, logger="kafka_app.broker.handlers.fetch_memory"):
        capped = _fetch(embedded_broker.port, "capped", {0: 0, 1: 0})
    assert [_batch_count(capped[p].records) for p in (0, 1)] == [1, 0]  # KIP-74: one batch
    assert "fetch memory cap" in caplog.text
    embedded_broker.call(other.release)
    assert embedded_broker.call(lambda: memory.in_flight) == 0  # the answer's bytes went back
    full = _fetch(embedded_broker.port, "capped", {0: 0, 1: 0})
    assert [_batch_count(full[p].records) for p in (0, 1)] == [3, 3]
