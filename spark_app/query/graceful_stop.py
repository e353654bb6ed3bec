"""A stop between batches, which Structured Streaming does not offer: `query.stop()` interrupts
whatever batch is running.

A batch interrupted after foreachBatch wrote its lines but before Spark wrote `commits/N`
leaves those lines in the output log; only its replay takes them back, and a replay that never
comes (the data aged out and failOnDataLoss=false skips it) leaves them counted twice. Waiting
for a pause between triggers and then calling stop() is not enough: the next trigger can begin
between the look and the stop (the stack matrix met exactly that under CI's load). So the output
itself has a gate: once a stop is asked for, no batch may begin writing (it raises, writes
nothing, and is replayed on the next start), and the last batch that did begin is let commit
before stop() is called.

Usage:
    gate = OutputGate()                    # the foreachBatch handler calls gate.enter(batch_id)
    stop_between_batches(query, gate, checkpoint_dir)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "Gate",
    "OutputGate",
    "StopBeforeOutput",
    "STOP_WAIT_SEC",
    "stop_between_batches",
    "stopped_before_output",
    "STOPPED_CLEANLY",
    "STOPPED_BEFORE_OUTPUT",
    "STOPPED_BEFORE_START",
    "STOPPED_JVM_GONE",
    "interrupted_line",
    "is_stop_line",
]

# Bounded so that a batch stuck on an unreachable Kafka cannot hold a stop.
STOP_WAIT_SEC = 30.0

# The app's last line after a stop (SIGTERM or Ctrl-C), on stderr; each starts with "Stopped".
STOPPED_CLEANLY = "Stopped cleanly; a restart continues from the checkpoint."
STOPPED_BEFORE_OUTPUT = (
    "Stopped cleanly; a batch that began as the stop came wrote nothing and "
    "is replayed on the next start."
)
STOPPED_BEFORE_START = "Stopped before the query started; the checkpoint is as it was."
STOPPED_JVM_GONE = (
    "Stopped; Spark's JVM had ended already (the interrupt reached it too), so a "
    "batch it had not committed is replayed on the next start."
)


def interrupted_line(token: str) -> str:
    """The stop line when the batch in flight failed as it stopped (`token`: why, in one word).

    A signal sent to the whole process group (Ctrl-C in a terminal) also reaches Spark's Python
    workers, so the batch in flight may fail while we stop; it was not committed and is replayed.
    """
    return f"Stopped; the batch in flight was interrupted and will be replayed ({token})"


def is_stop_line(line: str) -> bool:
    """Whether `line` is one of the app's stop lines above."""
    return line.startswith(("Stopped cleanly; ", "Stopped; ", "Stopped before "))


# Spark wraps what foreachBatch raises into the query's error; this token finds it there.
_TOKEN = "STOP_REQUESTED_BEFORE_OUTPUT"


class StopBeforeOutput(RuntimeError):
    """A batch reached the output after a stop was asked for: it writes nothing."""

    def __init__(self, batch_id: int) -> None:
        super().__init__(
            f"{_TOKEN}: batch {batch_id} began after the stop was asked for; it "
            f"wrote nothing and is replayed on the next start"
        )


class Gate(Protocol):
    """What a stop closes: OutputGate in the app's process, FileGate across processes
    (server_writer.py, under Spark Connect)."""

    def enter(self, batch_id: int) -> None: ...

    def close(self) -> int | None: ...


class OutputGate:
    """Open until a stop is asked for; remembers the last batch that began writing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = False
        self._last_entered: int | None = None

    def enter(self, batch_id: int) -> None:
        """Called by foreachBatch before anything is written; raises once the gate is closed."""
        with self._lock:
            if self._closed:
                raise StopBeforeOutput(batch_id)
            self._last_entered = batch_id

    def close(self) -> int | None:
        """No batch may begin writing from now on; returns the last one that did (or None)."""
        with self._lock:
            self._closed = True
            return self._last_entered


def stop_between_batches(
    query: Any,
    gate: Gate,
    checkpoint_dir: Path,
    timeout: float = STOP_WAIT_SEC,
    commit_exists: Callable[[int], bool] | None = None,
) -> None:
    """Close the gate, let the batch that began writing commit (bounded), then stop.
    `commit_exists` asks a checkpoint store (HDFS, S3) instead of the local folder."""
    began = gate.close()
    if began is not None:
        batch = began
        committed = (
            (lambda: commit_exists(batch))
            if commit_exists is not None
            else (checkpoint_dir / "commits" / str(began)).exists
        )
        _wait_for_commit(query, committed, timeout)
    query.stop()


def _wait_for_commit(query: Any, committed: Callable[[], bool], timeout: float) -> None:
    # The commit file, not lastProgress: an idle trigger's progress already carries the id of
    # the batch that has not run yet.
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not committed():
        try:
            if not query.isActive:  # it failed meanwhile: nothing left to wait for
                return
        except Exception:  # the JVM is going away: nothing left to wait for either
            return
        time.sleep(0.05)


def stopped_before_output(failure: BaseException) -> bool:
    """Whether the query ended because a batch met the closed gate."""
    return _TOKEN in str(failure)
