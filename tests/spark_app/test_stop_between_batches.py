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
