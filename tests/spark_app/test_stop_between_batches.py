"""A SIGTERM stops the query between batches: no batch's lines are left without its commit.

Stopped mid-batch, a batch leaves its output lines without its commit; when its replay never
comes (the data aged out and failOnDataLoss=false skips it) they stay counted. The stack matrix
met exactly that under load in short-retention, twice: once with no wait at all, once when the
next trigger began between a look at the query's status and the stop.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from spark_app.query.graceful_stop import (
    OutputGate,
    StopBeforeOutput,
    stop_between_batches,
    stopped_before_output,
)


class SimulatedQuery:
    """Spark's micro-batch thread in miniature: batch N enters the output gate, writes its
    lines, spends `commit_sec` before `commits/N`, and the next begins at once (back to back,
    as in a backlog or a soak). stop() interrupts whatever batch is running."""

    def __init__(self, checkpoint: Path, gate: OutputGate, commit_sec: float) -> None:
        self.commits = checkpoint / "commits"
        self.commits.mkdir(parents=True)
        self.gate, self.commit_sec = gate, commit_sec
        self.written: list[int] = []
        self.failure: BaseException | None = None
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def isActive(self) -> bool:  # noqa: N802 (Spark's name)
        return self._thread.is_alive() and not self._stopped.is_set()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(5)

    def committed(self) -> list[int]:
        return sorted(int(p.name) for p in self.commits.iterdir())

    def _run(self) -> None:
        batch = 0
        while not self._stopped.is_set():
            try:
                self.gate.enter(batch)
            except StopBeforeOutput as err:
                self.failure = err
                return
            self.written.append(batch)
            if self._stopped.wait(self.commit_sec):
                return  # interrupted between the lines and the commit
            (self.commits / str(batch)).write_text("v1\n{}")
            batch += 1


@pytest.mark.parametrize("stop_after", [0.0, 0.013, 0.05, 0.101, 0.27])
def test_every_batch_that_wrote_is_committed_when_the_stop_returns(
    tmp_path: Path, stop_after: float
) -> None:
    gate = OutputGate()
    query = SimulatedQuery(tmp_path, gate, commit_sec=0.04)
    time.sleep(stop_after)
    stop_between_batches(query, gate, tmp_path, timeout=5)
    assert query.written == query.committed()


def test_a_batch_that_begins_after_the_stop_writes_nothing_and_says_why() -> None:
    gate = OutputGate()
    gate.enter(6)
    assert gate.close() == 6
    with pytest.raises(StopBeforeOutput) as raised:
        gate.enter(7)
    assert "batch 7" in str(raised.value) and "replayed" in str(raised.value)
    # Spark wraps it in the query's error: the app still recognises a clean stop.
    assert stopped_before_output(RuntimeError(f"foreachBatch failed: {raised.value}"))
    assert not stopped_before_output(RuntimeError("KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE"))


class StuckQuery:
    """A batch that began writing and never commits (Kafka unreachable, say)."""

    def __init__(self, active: bool) -> None:
        self.isActive = active
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def test_the_wait_is_bounded_and_a_dead_query_is_not_waited_for(tmp_path: Path) -> None:
    for active, bound in ((True, 0.3), (False, 5.0)):
        gate, query = OutputGate(), StuckQuery(active)
        gate.enter(3)
        started = time.monotonic()
        stop_between_batches(query, gate, tmp_path, timeout=bound)
        assert time.monotonic() - started < 1.5 and query.stopped


def test_a_query_that_never_wrote_is_stopped_at_once(tmp_path: Path) -> None:
    query = StuckQuery(active=True)
    started = time.monotonic()
    stop_between_batches(query, OutputGate(), tmp_path, timeout=30)
    assert time.monotonic() - started < 0.5 and query.stopped


def test_every_stop_line_reads_back_as_one_and_batch_lines_do_not() -> None:
    """The app's last line after a stop is found on a screen by `is_stop_line` (the Ctrl-C test
    counts them); a batch's line or an error line is not one."""
    from spark_app.query.graceful_stop import (
        STOPPED_BEFORE_OUTPUT,
        STOPPED_BEFORE_START,
        STOPPED_CLEANLY,
        STOPPED_JVM_GONE,
        interrupted_line,
        is_stop_line,
    )

    for line in (
        STOPPED_CLEANLY,
        STOPPED_BEFORE_OUTPUT,
        STOPPED_BEFORE_START,
        STOPPED_JVM_GONE,
        interrupted_line("STREAM_FAILED"),
    ):
        assert is_stop_line(line), line
    for line in (
        "batch 3: Experience-0 [2, 3) rows=1 count=3 took 905 ms",
        "spark_app: STREAM_FAILED: the query stopped",
        "Streaming Experience from 127.0.0.1:9092, checkpoints in checkpoints",
    ):
        assert not is_stop_line(line), line
