"""How much one batch may read: `maxOffsetsPerTrigger`, `minOffsetsPerTrigger`, `maxTriggerDelay`.

Both follow Spark's Kafka connector (`KafkaMicroBatchStream.rateLimit` and `delayBatch`) to the
rounding, because a learner watching `offsets/N` grow should see the production numbers:

- The limit is shared in proportion to each partition's backlog, rounded down, or up when a
  share is below 1 (so no partition starves, and the batch may read a little more or less than
  the limit). The backlog counts from the batch's start even when Kafka has deleted part of it,
  so after data loss a limited query steps through the lost range instead of jumping over it.
- With a minimum, a batch waits until that many new offsets are there, or until
  `maxTriggerDelay` has passed since the last batch; the first call after a start never waits.

PySpark's Python streaming API (4.2+) has `ReadMaxRows` but no composite limit and no trigger
delay, so the minimum and the delay are kept here, in the reader, with the same rules.

Usage: `end = rate_limit(1000, start, latest, earliest_of_new)`
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from spark_app.offsets import Offsets, TopicPartition

__all__ = ["rate_limit", "TriggerDelay", "new_records"]


def rate_limit(
    limit: int,
    start: Mapping[TopicPartition, int],
    latest: Mapping[TopicPartition, int],
    earliest_of_new: Mapping[TopicPartition, int],
) -> Offsets:
    """The batch's end offsets when it may read about `limit` offsets in all."""
    sizes: dict[TopicPartition, tuple[int, int]] = {}
    for tp, end in latest.items():
        begin = start.get(tp, earliest_of_new.get(tp))
        if begin is not None and end - begin > 0:
            sizes[tp] = (begin, end - begin)
    total = float(sum(size for _, size in sizes.values()))
    if total < 1:
        return dict(latest)
    out: Offsets = {}
    for tp, end in latest.items():
        if tp not in sizes:
            out[tp] = end
            continue
        begin, size = sizes[tp]
        share = limit * (size / total)
        out[tp] = min(end, begin + (math.ceil(share) if share < 1 else math.floor(share)))
    return out


def new_records(start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int]) -> int:
    """Offsets waiting, as delayBatch counts them: a partition not yet seen counts from 0."""
    return sum(end - start.get(tp, 0) for tp, end in latest.items())


@dataclass
class TriggerDelay:
    """delayBatch: hold a batch back until `min_rows` are waiting or `max_delay_ms` has passed."""

    min_rows: int
    max_delay_ms: int
    clock_ms: Callable[[], float] = field(default=lambda: time.time() * 1000)
    last_trigger_ms: float = 0.0

    def should_wait(
        self, start: Mapping[TopicPartition, int], latest: Mapping[TopicPartition, int]
    ) -> bool:
        now = self.clock_ms()
        if now - self.last_trigger_ms >= self.max_delay_ms:
            self.last_trigger_ms = now
            return False
        if new_records(start, latest) < self.min_rows:
            return True
        self.last_trigger_ms = now
        return False
