"""What two apps on one checkpoint left behind, read without any process: which of Spark's
words for a concurrent writer an app printed, and how two output logs overlap.

A checkpoint has one writer by design; Spark notices a second one only where both write the
same file of its logs (`offsets/N`, `commits/N`). These helpers let the
checkpoint-moved-and-shared scenario say which words were met and what each app wrote.

Usage:
    concurrent_write_words(app_output + spark_log)  # ("CONCURRENT_STREAM_LOG_UPDATE", …)
    overlap([(1, 1), (2, 2)], [(2, 2), (3, 3)])      # Overlap(both=(2,), …)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spark_app.lines.output_line import CountLine, MessageLine, parse_line

__all__ = ["CONCURRENT_WORDS", "Overlap", "concurrent_write_words", "counted_values", "overlap"]

# What Spark says when a second writer is seen: its error class for a log file of a batch that
# another query wrote first, the exception under it, and the check of one session.
CONCURRENT_WORDS = (
    "CONCURRENT_STREAM_LOG_UPDATE",
    "ConcurrentModificationException",
    "FileAlreadyExistsException",
    "CONCURRENT_QUERY",
)



def concurrent_write_words(text: str) -> tuple[str, ...]:
    """Spark's words for a concurrent writer found in `text`, in CONCURRENT_WORDS' order."""
    return tuple(word for word in CONCURRENT_WORDS if word in text)


def counted_values(path: Path) -> list[tuple[int, int | None]]:
    """(value, count) for every message of an output log, in log order: the count is the
    `Count = n` line written just before the message (None when there is none)."""
    if not path.exists():
        return []
    pairs: list[tuple[int, int | None]] = []
    count: int | None = None
    for text in path.read_text(encoding="utf-8").splitlines():
        line = parse_line(text)
        if isinstance(line, CountLine):
            count = line.count
        elif isinstance(line, MessageLine) and line.value is not None:
            pairs.append((line.value, count))
            count = None
    return pairs


@dataclass(frozen=True)
class Overlap:
    """Two output logs read as one: what only one of them wrote, what both did, and whether
    the two agree on the count of each value both wrote."""

    only_first: tuple[int, ...]
    only_second: tuple[int, ...]
    both: tuple[int, ...]
    counts_differ: tuple[int, ...]  # values both wrote, with different counts

    @property
    def union(self) -> tuple[int, ...]:
        return tuple(sorted({*self.only_first, *self.only_second, *self.both}))


def overlap(first: Sequence[tuple[int, int | None]],
            second: Sequence[tuple[int, int | None]]) -> Overlap:
    """How the messages of two output logs ((value, count) pairs) overlap."""
    a, b = _by_value(first), _by_value(second)
    both = sorted(set(a) & set(b))
    return Overlap(only_first=tuple(sorted(set(a) - set(b))),
                   only_second=tuple(sorted(set(b) - set(a))),
                   both=tuple(both),
                   counts_differ=tuple(v for v in both if a[v] != b[v]))


def _by_value(pairs: Iterable[tuple[int, int | None]]) -> dict[int, int | None]:
    seen: dict[int, int | None] = {}
    for value, count in pairs:
        seen.setdefault(value, count)
    return seen
