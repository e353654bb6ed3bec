"""The output log's line, in one place: how the sink writes it and how everyone reads it back.

Seed 001's SparkApp logs two lines per message with log4j's layout:

    [INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Count = 890
    [INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: Experience: 890 -> 890

`--output-format v2` (the upgrade scenario's new version) also names where the message came
from: `v2 Experience-0@889: 890 -> 890`. A key or value that is not the producer's whole number
is written as a bounded JSON string (see `output_field`).

With `--idle-timer-sec` or `--state-ttl-sec` (transformWithState) the log also gets an event
line when a timer fires or a TTL'd state was found expired (state_events.py), never between a
`Count` line and its message:

    [INFO] [2026-11-24 18:40:02,000] [StreamingOutput]: Event idle-timer after count 42: no …

Without those options the log has only the two lines above. The sink formats with `format_lines`;
the verifier, the scenarios, the demo and the benchmarks read with `parse_line`, so a change to
the line's shape is made here once.

Usage:
    text = format_lines([OutputRow("Experience", "42", "42", count=7)], datetime.now())
    [count, message] = [parse_line(line) for line in text.splitlines()]
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

__all__ = [
    "OutputRow",
    "CountLine",
    "MessageLine",
    "EventLine",
    "OUTPUT_FORMATS",
    "FOREIGN_FIELD_CHARS",
    "format_lines",
    "format_event_line",
    "message_text",
    "output_field",
    "parse_line",
    "written_at",
]

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


def _prefix(now: datetime) -> str:
    stamp = f"{now:%Y-%m-%d %H:%M:%S},{now.microsecond // 1000:03d}"
    return f"[INFO] [{stamp}] [StreamingOutput]: "


_STAMP = re.compile(r"^\[INFO\] \[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3})\] \[StreamingOutput\]: ")


def written_at(text: str) -> datetime | None:
    """When the app wrote a line of the output log (its local time, to the millisecond)."""
    found = _STAMP.match(text)
    if found is None:
        return None
    return datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S").replace(
        microsecond=int(found.group(2)) * 1000
    )


def format_lines(rows: Iterable[OutputRow], now: datetime, output_format: str = "v1") -> str:
    """The seed's two lines per message, with log4j's comma before the milliseconds."""
    prefix = _prefix(now)
    return "".join(
        f"{prefix}Count = {row.count}\n{prefix}{message_text(row, output_format)}\n" for row in rows
    )


def format_event_line(kind: str, count: int, text: str, now: datetime) -> str:
    """One event line (a timer fired, a TTL'd state expired), after the count it happened at."""
    one_line = " ".join(text.split())
    return f"{_prefix(now)}Event {kind} after count {count}: {one_line}\n"


@dataclass(frozen=True)
class CountLine:
    """`Count = n`: the running count after the message on the next line."""

    count: int


@dataclass(frozen=True)
class MessageLine:
    """`Experience: key -> value` (or v2's `v2 Experience-0@41: key -> value`).

    `value` (and `key`) is None for a foreign message (one that is not a whole number)."""

    topic: str
    value: int | None
    v2: bool = False
    partition: int | None = None
    offset: int | None = None
    key: int | None = None


@dataclass(frozen=True)
class EventLine:
    """`Event idle-timer after count 42: …`: not a message; the verifier passes over it."""

    kind: str
    count: int
    text: str


_COUNT = re.compile(r"\[StreamingOutput\]: Count = (-?\d+)\s*$")
# A field is the producer's whole number, or (any other message) a JSON string or null.
_FIELD = r'(-?\d+|null|"(?:[^"\\]|\\.)*")'
_MESSAGE = re.compile(
    r"\[StreamingOutput\]: (v2 )?([A-Za-z0-9._-]+?)(?:-(\d+)@(\d+))?: "
    + _FIELD
    + " -> "
    + _FIELD
    + r"\s*$"
)


_EVENT = re.compile(r"\[StreamingOutput\]: Event ([a-z][a-z-]*) after count (-?\d+): (.*?)\s*$")


def parse_line(text: str) -> CountLine | MessageLine | EventLine | None:
    """One line of the output log read back; None for a line the app does not write."""
    count = _COUNT.search(text)
    if count:
        return CountLine(int(count.group(1)))
    event = _EVENT.search(text)
    if event:
        return EventLine(event.group(1), int(event.group(2)), event.group(3))
    message = _MESSAGE.search(text)
    if message is None:
        return None
    v2, topic, partition, offset, key, value = message.groups()
    return MessageLine(
        topic,
        _whole(value),
        v2 is not None,
        int(partition) if partition else None,
        int(offset) if offset else None,
        _whole(key),
    )


def _whole(field: str) -> int | None:
    """A field written as the producer's whole number, read back; None for any other."""
    return int(field) if field[:1] in "-0123456789" else None
