"""Retention rules: which of a partition's oldest segments Kafka's delete policy removes.

Apache Kafka's rules, kept pure so they can be read and tested apart from files:
- retention.ms: a segment is expired when now - (largest record timestamp in it) > retention.ms.
- retention.bytes: while the partition is bigger than retention.bytes, the oldest segment goes
  if removing it does not bring the size below retention.bytes.
- Segments are tested oldest first and the walk stops at the first one that stays. The active
  (newest) segment counts too when it holds data; the log rolls a new empty segment before
  deleting it. A negative setting disables that rule.

Usage: `count = expired_by_time(summaries, retention_ms=60_000, now_ms=clock())`
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["RetentionEvent", "SegmentSummary", "expired_by_time", "expired_by_size"]

REASON_TIME = "retention.ms"
REASON_SIZE = "retention.bytes"


@dataclass(frozen=True)
class RetentionEvent:
    """One deletion: which segments went, why, and how the log start offset moved."""

    topic: str
    partition: int
    reason: str  # "retention.ms" | "retention.bytes"
    deleted_segments: list[int]  # base offsets, oldest first
    old_log_start_offset: int
    new_log_start_offset: int


@dataclass(frozen=True)
class SegmentSummary:
    """What the rules need to know about a segment."""

    base_offset: int
    size: int
    largest_timestamp: int
    is_empty: bool


def expired_by_time(segments: Sequence[SegmentSummary], retention_ms: int, now_ms: int) -> int:
    """How many leading segments retention.ms deletes."""
    if retention_ms < 0:
        return 0
    count = 0
    for segment in segments:
        # An empty segment holds no timestamp to expire; it can only be the newest one.
        if segment.is_empty or now_ms - segment.largest_timestamp <= retention_ms:
            break
        count += 1
    return count


def expired_by_size(segments: Sequence[SegmentSummary], retention_bytes: int) -> int:
    """How many leading segments retention.bytes deletes."""
    total = sum(segment.size for segment in segments)
    if retention_bytes < 0 or total <= retention_bytes:
        return 0
    excess = total - retention_bytes
    count = 0
    for segment in segments:
        if segment.is_empty or excess - segment.size < 0:
            break
        excess -= segment.size
        count += 1
    return count
