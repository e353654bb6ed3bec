"""foreachBatch under Spark Connect (`--connect`): the writer runs in the server's Python process.

Spark Connect pickles the foreachBatch function and runs it in a Python process the server
starts, one per query, for every batch. The app's writers hold what cannot be pickled (an open
output log, a Kafka client, a lock), so what goes to the server is a recipe: a function that
builds the writer there, on the first batch, and keeps it for the next ones.

The stop between batches (graceful_stop.py) needs the app to see which batch began writing and
to keep any new one from beginning: across two processes that is a file gate (`FileGate`), the
same rule as OutputGate's, with a lock file taken by both sides.

Usage:
    gate = FileGate(settings.log_dir / "output-gate")
    writer = InServer(functools.partial(QuerySink, folder, gate), gate)
    rows.writeStream.foreachBatch(writer)        # the app stops with stop_between_batches(…, gate)
"""

from __future__ import annotations

import fcntl
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from spark_app.query.graceful_stop import StopBeforeOutput

__all__ = ["FileGate", "InServer"]


@dataclass(frozen=True)
class FileGate:
    """OutputGate's rule across processes: `folder/closed` once a stop is asked for, and
    `folder/entered` with the last batch that began writing, both under `folder/lock`."""

    folder: Path

    def open_fresh(self) -> FileGate:
        """The gate open, with no batch entered: at the app's start, before the query."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for name in ("closed", "entered"):
            (self.folder / name).unlink(missing_ok=True)
        return self

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with open(self.folder / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def enter(self, batch_id: int) -> None:
        """Called in the server's process before a batch writes; raises once the gate closed."""
        with self._locked():
            if (self.folder / "closed").exists():
                raise StopBeforeOutput(batch_id)
            (self.folder / "entered").write_text(str(batch_id), encoding="utf-8")

    def close(self) -> int | None:
        """Called by the app as it stops: no batch may begin from now; the last that did."""
        with self._locked():
            (self.folder / "closed").touch()
            entered = self.folder / "entered"
            return int(entered.read_text(encoding="utf-8")) if entered.exists() else None


class _WithoutWorkerLines:
    """The server's Python process's stdout without PySpark's two lines per batch ("Streaming
    ForeachBatch worker Started batch 7 with DF id …"): the JVM passes that stdout on to the
    app's console, where they buried the app's own line per batch. print() writes a line's text
    and its newline in two calls, so a dropped text drops the newline after it."""

    _PREFIX = "Streaming ForeachBatch worker "

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._dropped = False

    def write(self, text: str) -> int:
        dropped, self._dropped = self._dropped, text.startswith(self._PREFIX)
        if self._dropped or (dropped and text == "\n"):
            return len(text)
        return self._out.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._out, name)


class InServer:
    """The foreachBatch function handed to Spark Connect: builds the writer where it runs.

    Spark Connect unpickles it once in the server's Python process and calls it for every
    batch of the query, so the writer built on the first batch serves the next ones."""

    def __init__(
        self,
        build: Callable[[], Any],
        gate: FileGate,
        count_after: Callable[[int], int | None] | None = None,
    ) -> None:
        self.build = build  # picklable: a module-level class or function, or a partial of one
        self.gate = gate
        # Where the app reads the counter's count after a batch: what the server wrote.
        self.count_after = count_after
        self._writer: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"build": self.build, "gate": self.gate, "count_after": None, "_writer": None}

    def __call__(self, batch: Any, batch_id: int) -> None:
        if self._writer is None:
            sys.stdout = _WithoutWorkerLines(sys.stdout)
            self._writer = self.build()
        self._writer(batch, batch_id)

    def count_of(self, batch_id: int) -> int | None:
        """The counter's running count after a batch, as the server's process wrote it to the
        output log (a query module has none)."""
        return None if self.count_after is None else self.count_after(batch_id)

    def close(self) -> None:
        """Nothing of the writer lives in the app's process."""
