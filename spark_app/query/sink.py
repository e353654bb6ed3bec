"""The output log, `log/streaming-output.log`, written once per batch from foreachBatch.

foreachBatch is at-least-once: after a crash Spark runs the last uncommitted batch again. The
exactly-once sink makes that harmless with a small journal beside the log
(`streaming-output.journal`): before appending batch N it records "query Q, batch N, log was S
bytes", and after the fsync "done". On the replay of N it either skips N (done) or cuts the log
back to S bytes (half-written) and writes N again. The at-least-once sink simply appends, which
shows the duplicates a crash makes. What a line looks like is `output_line.py`'s business.

Usage:
    sink = open_sink("exactly-once", Path("log/streaming-output.log"), lambda: query_id)
    with sink.batch(7) as out:
        if out is not None: out.write(format_lines(rows, datetime.now()))
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Protocol

from spark_app.lines.output_line import CountLine, parse_line
from spark_app.runtime.atomic_file import write_atomically

__all__ = [
    "JournalEntry",
    "Journal",
    "ExactlyOnceSink",
    "AtLeastOnceSink",
    "Sink",
    "open_sink",
    "JOURNAL_SUFFIX",
    "count_after",
]

JOURNAL_SUFFIX = ".journal"


@dataclass(frozen=True)
class JournalEntry:
    """The last batch the sink started; `end_size` is None until its lines are safely written."""

    query_id: str | None
    batch_id: int
    start_size: int
    end_size: int | None = None


class Journal:
    """One JSON record, replaced atomically (atomic_file.py)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> JournalEntry | None:
        if not self.path.exists():
            return None
        return JournalEntry(**json.loads(self.path.read_text(encoding="utf-8")))

    def save(self, entry: JournalEntry) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(self.path, json.dumps(asdict(entry)))


class Sink(Protocol):
    """What the batch handler needs from either sink."""

    path: Path

    def batch(self, batch_id: int) -> AbstractContextManager[IO[str] | None]: ...


def _append(path: Path) -> IO[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "a", encoding="utf-8")


def _sync(out: IO[str]) -> None:
    out.flush()
    os.fsync(out.fileno())


class AtLeastOnceSink:
    """Plain append: a replayed batch is written again."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @contextmanager
    def batch(self, batch_id: int) -> Iterator[IO[str]]:
        with _append(self.path) as out:
            yield out
            _sync(out)


class ExactlyOnceSink:
    """Append keyed on (query id, batch id), with roll-back of a half-written batch."""

    def __init__(self, path: Path, query_id: Callable[[], str | None]) -> None:
        self.path = path
        self.journal = Journal(path.with_name(path.name + JOURNAL_SUFFIX))
        self._query_id = query_id

    def _size(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    def _roll_back(self, entry: JournalEntry) -> None:
        # Lines of a batch that was never committed by Spark: the replay writes them again.
        if self._size() > entry.start_size:
            with open(self.path, "r+b") as f:
                f.truncate(entry.start_size)
                os.fsync(f.fileno())

    @contextmanager
    def batch(self, batch_id: int) -> Iterator[IO[str] | None]:
        """Yield the log to append batch `batch_id` to, or None when it is already written."""
        query_id = self._query_id()
        entry = self.journal.load()
        # A journal from another query id (checkpoint deleted) says nothing about this query's
        # batches, and its lines were output for good: leave them.
        if entry is not None and entry.query_id == query_id:
            if entry.end_size is None:
                self._roll_back(entry)
            elif batch_id <= entry.batch_id:
                yield None
                return
        start = self._size()
        self.journal.save(JournalEntry(query_id, batch_id, start))
        with _append(self.path) as out:
            yield out
            _sync(out)
        self.journal.save(JournalEntry(query_id, batch_id, start, self._size()))


def count_after(path: Path, batch_id: int) -> int | None:
    """The running count after batch `batch_id`'s lines in the output log, read back from the
    part the journal says that batch wrote; None unless it is the last batch written whole.

    Under Spark Connect the batch is written in the server's process (server_writer.py), so
    the app's batch line reads its count here instead of from its own handler."""
    entry = Journal(path.with_name(path.name + JOURNAL_SUFFIX)).load()
    if entry is None or entry.batch_id != batch_id or entry.end_size is None:
        return None
    try:
        with open(path, "rb") as f:
            f.seek(entry.start_size)
            written = f.read(entry.end_size - entry.start_size).decode("utf-8", "replace")
    except OSError:
        return None
    counts = [
        line.count for line in map(parse_line, written.splitlines()) if isinstance(line, CountLine)
    ]
    return counts[-1] if counts else None


def open_sink(
    mode: str, path: Path, query_id: Callable[[], str | None]
) -> ExactlyOnceSink | AtLeastOnceSink:
    """The sink for `--sink exactly-once|at-least-once`."""
    return ExactlyOnceSink(path, query_id) if mode == "exactly-once" else AtLeastOnceSink(path)
