"""A SIGTERM stops the query between batches: a batch in flight is let finish (bounded).

Stopped mid-batch, a batch leaves its output lines without its commit; when its replay never
comes (the data aged out and failOnDataLoss=false skips it) they stay counted. The stack matrix
met exactly that under load in short-retention.
"""

from __future__ import annotations

import time

from spark_app.app import _let_the_batch_in_flight_finish


class FakeQuery:
    """A query whose trigger stays active for `busy_sec`."""

    def __init__(self, busy_sec: float, active: bool = True) -> None:
        self.until = time.monotonic() + busy_sec
        self.isActive = active

    @property
    def status(self) -> dict[str, object]:
        return {"isTriggerActive": time.monotonic() < self.until}


def test_the_stop_waits_for_the_batch_in_flight() -> None:
    query = FakeQuery(busy_sec=0.5)
    _let_the_batch_in_flight_finish(query, timeout=5)
    assert not query.status["isTriggerActive"]


def test_the_wait_is_bounded_and_a_dead_query_is_not_waited_for() -> None:
    started = time.monotonic()
    _let_the_batch_in_flight_finish(FakeQuery(busy_sec=60), timeout=0.3)
    _let_the_batch_in_flight_finish(FakeQuery(busy_sec=60, active=False), timeout=5)
    assert time.monotonic() - started < 2


class BackToBackQuery:
    """Batches longer than the trigger: the trigger is always active; batch 7 is in flight and
    reports its progress after `batch_sec`, when batch 8 starts at once."""

    isActive = True
    status = {"isTriggerActive": True}

    def __init__(self, batch_sec: float) -> None:
        self.done_at = time.monotonic() + batch_sec

    @property
    def lastProgress(self) -> dict[str, object]:
        return {"batchId": 7 if time.monotonic() >= self.done_at else 6}


def test_back_to_back_batches_stop_after_the_one_in_flight() -> None:
    """A soak whose batches outlast the trigger never pauses between them (checkpoint-growth
    waited the whole 30 s on each stop): the end of the batch in flight is enough."""
    query = BackToBackQuery(batch_sec=0.5)
    started = time.monotonic()
    _let_the_batch_in_flight_finish(query, timeout=10)
    waited = time.monotonic() - started
    assert 0.4 < waited < 2
