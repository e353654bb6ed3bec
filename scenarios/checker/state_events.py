"""What the output log's event lines and the checkpoint's batches say about transformWithState's
time: the events after a count, a timer's firings, whether an event came right before a count,
the batch that reached a value or a time. Pure: state-ttl-and-timers' checks read these.

Usage: `timers_due(report.events, due_ms=1_700_000_000_000)`
"""

from __future__ import annotations

from collections.abc import Sequence

from spark_app.checkpoint.reader import BatchOffsets
from spark_app.lines.output_line import EventLine, parse_line
from spark_app.lines.state_events import IDLE_TIMER, details_in

__all__ = [
    "batch_reaching",
    "event_precedes",
    "events_at",
    "events_in_lines",
    "first_batch_at_or_after",
    "timers_due",
]


def events_at(events: Sequence[EventLine], kind: str, count: int) -> list[EventLine]:
    """The events of `kind` that happened after `count`."""
    return [e for e in events if e.kind == kind and e.count == count]


def events_in_lines(lines: Sequence[str]) -> list[EventLine]:
    """The event lines among output-log lines."""
    return [e for e in map(parse_line, lines) if isinstance(e, EventLine)]


def timers_due(events: Sequence[EventLine], due_ms: int) -> list[EventLine]:
    """The idle-timer events of the timer due at `due_ms`."""
    return [
        e for e in events if e.kind == IDLE_TIMER and details_in(e.text).get("due_ms") == due_ms
    ]


def event_precedes(lines: Sequence[str], kind: str, count: int, next_count: int) -> bool:
    """Whether the `kind` event after `count` is the line right before `Count = next_count`."""
    parsed = [parse_line(line) for line in lines if line.strip()]
    for before, line in zip(parsed, parsed[1:]):
        if (
            getattr(line, "count", None) == next_count
            and not isinstance(line, EventLine)
            and isinstance(before, EventLine)
        ):
            return before.kind == kind and before.count == count
    return False


def batch_reaching(batches: Sequence[BatchOffsets], value: int) -> BatchOffsets | None:
    """The batch whose end offsets reach `value` messages (the topic starts at offset 0)."""
    return next((b for b in batches if (b.end_total or 0) >= value), None)


def first_batch_at_or_after(batches: Sequence[BatchOffsets], ms: int) -> BatchOffsets | None:
    """The first batch whose processing time (batchTimestampMs) is `ms` or later."""
    return next((b for b in batches if (b.batch_timestamp_ms or 0) >= ms), None)
