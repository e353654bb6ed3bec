"""What transformWithState's TTL and timers report: one event row per happening, one line each.

`--idle-timer-sec S` registers a processing-time timer S seconds after each batch with
messages; when it fires (no message for S seconds), `handleExpiredTimer` emits an
`idle-timer` event. With S 0 or below the timer is due when it is armed (at or before the
batch's own time) and its event says so. `--state-ttl-sec S` keeps a second value state,
`last_seen`, with a TTL of S seconds; when a message finds it gone (it expired: no message for
more than S seconds), `handleInputRows` emits a `ttl-expired` event before the batch's messages.
The count has no TTL and goes on.

An event travels in the operator's output (its schema is the counter's, OUTPUT_SCHEMA) as a row
with no topic, partition or offset: `key` holds its kind, `value` its details as `name=ms`
pairs, `count` the count when it happened. The batch handler writes it to the output log as an
event line (output_line.EventLine) through the same exactly-once sink as the messages, so a
replayed batch does not write an event twice.

Usage:
    frame = event_frame(Event("idle-timer", 42, {"due_ms": 1, "batch_ms": 2}))  # in the processor
    events = events_in(batch_frame)                                               # in foreachBatch
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = [
    "Event",
    "EVENT_KINDS",
    "IDLE_TIMER",
    "TTL_EXPIRED",
    "LAST_SEEN_VARIABLE",
    "LAST_SEEN_SCHEMA",
    "event_frame",
    "is_event",
    "events_in",
    "format_details",
    "parse_details",
    "details_in",
    "describe",
]

IDLE_TIMER = "idle-timer"
TTL_EXPIRED = "ttl-expired"
EVENT_KINDS = (IDLE_TIMER, TTL_EXPIRED)
# The value state with the TTL: when the last message was counted (the batch's processing time).
LAST_SEEN_VARIABLE = "last_seen"
LAST_SEEN_SCHEMA = "ms bigint"


@dataclass(frozen=True)
class Event:
    """One happening: its kind, the count at that moment, and its times in epoch ms."""

    kind: str
    count: int
    details: dict[str, int] = field(default_factory=dict)


def format_details(details: dict[str, int]) -> str:
    """`due_ms=…, batch_ms=…`: the details as the event row's value and the line's tail."""
    return ", ".join(f"{name}={value}" for name, value in details.items())


def parse_details(text: str) -> dict[str, int]:
    """format_details read back; a part that is not `name=number` is left out."""
    found: dict[str, int] = {}
    for part in text.split(","):
        name, equals, value = part.strip().partition("=")
        if equals and value.lstrip("-").isdigit():
            found[name] = int(value)
    return found


def details_in(text: str) -> dict[str, int]:
    """The details at the end of an event line's text (`… [due_ms=…, batch_ms=…]`)."""
    _, bracket, tail = text.rpartition("[")
    return parse_details(tail.rstrip("]")) if bracket else {}


def event_frame(event: Event) -> pd.DataFrame:
    """The event as one output row of the counter's schema (nullable where a message is not)."""
    return pd.DataFrame(
        {
            "topic": pd.Series([None], dtype=object),
            "partition": pd.Series([None], dtype="Int32"),
            "offset": pd.Series([None], dtype="Int64"),
            "key": [event.kind],
            "value": [format_details(event.details)],
            "count": pd.Series([event.count], dtype="int64"),
        }
    )


def is_event(frame: pd.DataFrame) -> Any:
    """Which rows of a batch are events: a message always has an offset."""
    return frame["offset"].isna()


def events_in(frame: pd.DataFrame) -> list[Event]:
    """The events among a batch's rows, in the order the operator emitted them."""
    rows = frame[is_event(frame)]
    return [
        Event(str(kind), int(count), parse_details(str(value)))
        for kind, value, count in zip(rows["key"], rows["value"], rows["count"])
    ]


def describe(event: Event) -> str:
    """The event in words, for its output line (details stay machine-readable in brackets)."""
    d = event.details
    if event.kind == IDLE_TIMER and d.get("idle_ms", 0) <= 0:  # due when it was armed
        when = (
            "at its batch's own time"
            if not d.get("idle_ms")
            else f"{-d['idle_ms'] / 1000:g} s before its batch's own time"
        )
        text = f"the timer due {when} ({d.get('due_ms')}) fired in the batch of {d.get('batch_ms')}"
    elif event.kind == IDLE_TIMER:
        text = (
            f"no message for {d.get('idle_ms', 0) / 1000:g} s: the timer due at "
            f"{d.get('due_ms')} fired in the batch of {d.get('batch_ms')}"
        )
    elif event.kind == TTL_EXPIRED:
        text = (
            f"{LAST_SEEN_VARIABLE} had expired (TTL {d.get('ttl_ms', 0) / 1000:g} s): no "
            f"message for longer than that; the count has no TTL and goes on"
        )
    else:
        text = event.kind
    return f"{text} [{format_details(d)}]"
