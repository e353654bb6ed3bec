"""What apps sharing a checkpoint left behind, read without any process: each output log as
(value, count) pairs, how two of them overlap, and which batch a set of values came from.

A checkpoint has one writer by design. When two apps run on one, their output logs are
compared: what only one wrote, what both wrote, and whether both gave a value the same count
(they did when both read the same state). The checkpoint-moved-and-shared scenario holds the
overlap against the checkpoint's batches: what both wrote should be one batch.

Usage:
    both = overlap(counted_values(first_log), counted_values(second_log))
    batch_holding({25: 131, 26: 133}, both.both)  # 26: values 132..133 are batch 26's
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spark_app.lines.output_line import CountLine, MessageLine, parse_line

__all__ = ["common_prefix", "Overlap", "batch_holding", "collided_on", "counted_values", "overlap"]

# Where in MicroBatchExecution Spark found the other writer's file: planning a batch writes
# offsets/N (markMicroBatchStart), ending it writes commits/N (markMicroBatchEnd).
_LOG_WRITERS = {"markMicroBatchStart": "offsets", "markMicroBatchEnd": "commits"}
_CONCURRENT = "CONCURRENT_STREAM_LOG_UPDATE"


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
    """Two output logs read as one: what only one of them wrote, what both did, and the values
    both wrote with different counts."""

    only_first: tuple[int, ...]
    only_second: tuple[int, ...]
    both: tuple[int, ...]
    counts_differ: tuple[int, ...]

    @property
    def union(self) -> tuple[int, ...]:
        return tuple(sorted({*self.only_first, *self.only_second, *self.both}))


def overlap(
    first: Sequence[tuple[int, int | None]], second: Sequence[tuple[int, int | None]]
) -> Overlap:
    """How the messages of two output logs ((value, count) pairs) overlap; a value written
    twice in one log is compared by its first count."""
    a, b = _by_value(first), _by_value(second)
    both = sorted(set(a) & set(b))
    return Overlap(
        only_first=tuple(sorted(set(a) - set(b))),
        only_second=tuple(sorted(set(b) - set(a))),
        both=tuple(both),
        counts_differ=tuple(v for v in both if a[v] != b[v]),
    )


def common_prefix(
    first: Sequence[tuple[int, int | None]], second: Sequence[tuple[int, int | None]]
) -> tuple[list[tuple[int, int | None]], list[tuple[int, int | None]]]:
    """Both logs cut at the lower of their highest values: two apps running side by side are
    compared on what both had the time to write. Without it, a batch one of them had just
    written and the other had not yet planned read as written by one only."""
    last = min(max((v for v, _ in first), default=0), max((v for v, _ in second), default=0))
    return [p for p in first if p[0] <= last], [p for p in second if p[0] <= last]


def batch_holding(ends: Mapping[int, int], values: Iterable[int]) -> int | None:
    """The one batch whose messages are all of `values`' (a batch's messages are the values
    after the previous batch's end offset up to its own: value n sits at offset n - 1, on one
    partition); None when there are none or they span several batches. `ends`: batch id to
    its end offset (offsets/N, summed over the partitions)."""
    wanted = set(values)
    if not wanted:
        return None
    for batch in sorted(ends):
        start = ends.get(batch - 1, 0 if batch == 0 else None)
        if start is not None and wanted <= set(range(start + 1, ends[batch] + 1)):
            return batch
    return None


def collided_on(spark_log: str) -> str | None:
    """Which of the checkpoint's logs a CONCURRENT_STREAM_LOG_UPDATE was raised on, read from
    the stack trace under it in spark.log: "offsets" or "commits"; None without one."""
    at = spark_log.find(_CONCURRENT)
    if at < 0:
        return None
    trace = spark_log[at : at + 4000]
    found = [(trace.find(method), log) for method, log in _LOG_WRITERS.items() if method in trace]
    return min(found)[1] if found else None


def _by_value(pairs: Iterable[tuple[int, int | None]]) -> dict[int, int | None]:
    seen: dict[int, int | None] = {}
    for value, count in pairs:
        seen.setdefault(value, count)
    return seen
