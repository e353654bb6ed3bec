"""A batch's offset ranges and how they become Spark tasks (`KafkaOffsetRangeCalculator`).

One range per Kafka partition, `[from, until)`; empty or negative ranges are dropped. With
`minPartitions` above the number of ranges, large ranges are split so that about that many
tasks read the batch, each part in proportion to its range's size; `maxRecordsPerPartition`
caps each task's share. Splitting changes only how many tasks read, never which records.

A batch's start offsets are also what `--offsets-from-group` commits to the consumer group when
the batch is planned (`start_offsets_to_commit`): everything below them was written by an
earlier batch (query/group_offsets.py has why).

Usage:
    ranges = split_ranges([OffsetRange(tp, 0, 100)], min_partitions=4)
    start_offsets_to_commit({tp: 10}, {tp: 15, other: 3})   # {tp: 10, other: 0}
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from spark_app.offsets import Offsets, TopicPartition

__all__ = ["OffsetRange", "split_ranges", "start_offsets_to_commit"]


@dataclass(frozen=True)
class OffsetRange:
    tp: TopicPartition
    start: int
    end: int

    @property
    def size(self) -> int:
        return self.end - self.start


def split_ranges(
    ranges: list[OffsetRange], min_partitions: int | None = None, max_records: int | None = None
) -> list[OffsetRange]:
    """The tasks of a batch: non-empty ranges, split for minPartitions and maxRecordsPerPartition."""
    ranges = [r for r in ranges if r.size > 0]
    if min_partitions is not None and len(ranges) < min_partitions:
        ranges = _split_for_min(ranges, min_partitions)
    if max_records is not None:
        ranges = [part for r in ranges for part in _parts(r, math.ceil(r.size / max_records))]
    return ranges


def _part_count(size: int, total: int, min_parts: int) -> int:
    # Java's Math.round rounds halves up; Python's round() would round them to even.
    return max(math.floor(size / total * min_parts + 0.5), 1)


def _split_for_min(ranges: list[OffsetRange], min_partitions: int) -> list[OffsetRange]:
    total = sum(r.size for r in ranges)
    # Ranges too small to split stay whole and are left out of the proportions.
    whole = {r.tp for r in ranges if _part_count(r.size, total, min_partitions) == 1}
    split_total = total - sum(r.size for r in ranges if r.tp in whole)
    split_min = max(min_partitions - len(whole), 1)
    out: list[OffsetRange] = []
    for r in ranges:
        parts = 1 if r.tp in whole else _part_count(r.size, split_total, split_min)
        out.extend(_parts(r, parts))
    return out


def _parts(r: OffsetRange, parts: int) -> list[OffsetRange]:
    """`parts` consecutive pieces; integer division, the last pieces take the remainder."""
    out, remaining, start = [], r.size, r.start
    for part in range(parts):
        this = remaining // (parts - part)
        remaining -= this
        end = min(start + this, r.end)
        out.append(OffsetRange(r.tp, start, end))
        start = end
    return [p for p in out if p.size > 0]


def start_offsets_to_commit(start: Offsets, end: Offsets) -> Offsets:
    """A batch's start offset for every partition it covers.

    `start` includes the partitions new since the previous batch, at their earliest offset
    (where the source reads them from); one still missing counts from 0.
    """
    return {tp: start.get(tp, 0) for tp in sorted(end)}
