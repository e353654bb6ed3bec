"""The output log, `log/streaming-output.log`, written once per batch from foreachBatch.

foreachBatch is at-least-once: after a crash Spark runs the last uncommitted batch again. The
exactly-once sink makes that harmless with a small journal beside the log
(`streaming-output.journal`): before appending batch N it records "query Q, batch N, log was S
bytes", and after the fsync "done". On the replay of N it either skips N (done) or cuts the log
back to S bytes (half-written) and writes N again. The at-least-once sink simply appends, which
shows the duplicates a crash makes.

`--output-format v2` is "the new version" of the code inside foreachBatch: the message line
also names where the message came from, `v2 Experience-0@41: 42 -> 42` (partition 0, offset
41). Only foreachBatch's code changes, so a restart on the same checkpoint may switch formats.

Usage:
    sink = open_sink("exactly-once", Path("log/streaming-output.log"), lambda: query_id)
    with sink.batch(7) as out:
        if out is not None: out.write(format_lines(rows, datetime.now()))
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, NamedTuple, Protocol

__all__ = ["OutputRow", "JournalEntry", "Journal", "ExactlyOnceSink", "AtLeastOnceSink",
           "Sink", "open_sink", "format_lines", "message_text", "JOURNAL_SUFFIX",
           "OUTPUT_FORMATS"]

JOURNAL_SUFFIX = ".journal"
OUTPUT_FORMATS = ("v1", "v2")
FOREIGN_FIELD_CHARS = 64
_WHOLE_NUMBER = re.compile(r"-?\d{1,30}")


class OutputRow(NamedTuple):
    """One counted message: what the two output lines show."""

    topic: str
    key: str | None
    value: str | None
    count: int
    partition: int | None = None
    offset: int | None = None


def message_text(row: OutputRow, output_format: str = "v1") -> str:
    """The message line's text: the seed's `Experience: 42 -> 42`, or v2's with its origin."""
    key, value = output_field(row.key), output_field(row.value)
    if output_format == "v2":
        return f"v2 {row.topic}-{row.partition}@{row.offset}: {key} -> {value}"
    return f"{row.topic}: {key} -> {value}"


def output_field(text: str | None) -> str:
    """A key or value as the log shows it: the producer's whole numbers as they are; anything
    else (sent by another client: text, binary, a megabyte) as a JSON string of at most
    FOREIGN_FIELD_CHARS characters, so no NUL byte, newline or huge line reaches the log and
    no foreign message can forge an output line. A missing key or value is `null`."""
    if text is None:
        return "null"
    if _WHOLE_NUMBER.fullmatch(text):
        return text
    cut = text[:FOREIGN_FIELD_CHARS] + ("…" if len(text) > FOREIGN_FIELD_CHARS else "")
    return json.dumps(cut)


def format_lines(rows: Iterable[OutputRow], now: datetime, output_format: str = "v1") -> str:
    """The seed's two lines per message, with log4j's comma before the milliseconds."""
    stamp = f"{now:%Y-%m-%d %H:%M:%S},{now.microsecond // 1000:03d}"
    prefix = f"[INFO] [{stamp}] [StreamingOutput]: "
    return "".join(f"{prefix}Count = {row.count}\n{prefix}{message_text(row, output_format)}\n"
                   for row in rows)


@dataclass(frozen=True)
class JournalEntry:
    """The last batch the sink started; `end_size` is None until its lines are safely written."""

    query_id: str | None
    batch_id: int
    start_size: int
    end_size: int | None = None


class Journal:
    """One JSON record, replaced atomically (temporary file, fsync, rename)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> JournalEntry | None:
        if not self.path.exists():
            return None
        return JournalEntry(**json.loads(self.path.read_text(encoding="utf-8")))

    def save(self, entry: JournalEntry) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(asdict(entry), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)


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


def open_sink(mode: str, path: Path, query_id: Callable[[], str | None]
              ) -> ExactlyOnceSink | AtLeastOnceSink:
    """The sink for `--sink exactly-once|at-least-once`."""
    return ExactlyOnceSink(path, query_id) if mode == "exactly-once" else AtLeastOnceSink(path)
