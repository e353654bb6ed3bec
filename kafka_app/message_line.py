"""The producer's line, in one place: how the producer prints and logs a sent message, and how
anyone reads it back.

After Kafka acknowledged a message the producer prints, and logs to `log/kafka.log`:

    Experience [89:109]: -110 -> 110
    [INFO] [2026-11-23 02:29:01,123] [kafka_app.producer]: Experience [89:109]: -110 -> 110

(topic, the topic's earliest and latest offsets right after the send, key, value). The
producer formats with `format_message`; the scenarios' record of what was sent reads the log
back with `parse_log_line`, so a change to the line's shape is made here once.

Usage:
    line = format_message("Experience", window, -110, 110)
    parse_message(line)   # ProducerLine(topic="Experience", earliest=89, latest=109, key=-110, value=110)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_app.topic_offsets import OffsetWindow

__all__ = [
    "PRODUCER_LOGGER",
    "ProducerLine",
    "format_message",
    "is_message_line",
    "parse_log_line",
    "parse_message",
]

# The logger the producer's lines go to; `parse_log_line` takes only its lines from kafka.log,
# which the broker writes to as well.
PRODUCER_LOGGER = "kafka_app.producer"


@dataclass(frozen=True)
class ProducerLine:
    """One acknowledged message as the producer reported it."""

    topic: str
    earliest: int
    latest: int
    key: int
    value: int


def format_message(
    topic: str, window: OffsetWindow, key: int | str | None, value: int | str
) -> str:
    """The seed's line: `TOPIC [EARLIEST:LATEST]: KEY -> VALUE` (a user's record's key and value
    are text; `parse_message` reads the counter's lines only)."""
    shown = "null" if key is None else key
    return f"{topic} [{window.earliest}:{window.latest}]: {shown} -> {value}"


# The seed padded the offsets inside the brackets; reading tolerates that.
_MESSAGE = re.compile(
    r"(?P<topic>[A-Za-z0-9._-]+) \[\s*(?P<earliest>\d+)\s*:\s*(?P<latest>\d+)\s*\]: "
    r"(?P<key>-?\d+) -> (?P<value>-?\d+)"
)
# kafka_app/logs.py's layout, `[LEVEL] [TIME] [LOGGER]: MESSAGE`, for the producer's logger.
_LOG_PREFIX = re.compile(r"\[[A-Z]+\] \[[^\]]*\] \[" + re.escape(PRODUCER_LOGGER) + r"\]: ")


def parse_message(text: str) -> ProducerLine | None:
    """`format_message`'s text read back; None for any other text."""
    match = _MESSAGE.fullmatch(text.strip())
    if match is None:
        return None
    return ProducerLine(
        match["topic"],
        int(match["earliest"]),
        int(match["latest"]),
        int(match["key"]),
        int(match["value"]),
    )


def parse_log_line(text: str) -> ProducerLine | None:
    """A line of kafka.log read back; None unless it is the producer's line for a sent message."""
    prefix = _LOG_PREFIX.match(text)
    return None if prefix is None else parse_message(text[prefix.end() :])


# Any message line, a user's record's too (text key and value): `TOPIC [E:L]: KEY -> VALUE`.
_ANY_MESSAGE = re.compile(r"(?P<topic>[A-Za-z0-9._-]+) \[\s*\d+\s*:\s*\d+\s*\]: .* -> .*")


def is_message_line(text: str, topic: str) -> bool:
    """Whether `text` is the producer's line of a message sent to `topic`, whatever its key and
    value (the counter's numbers, or a user's records' text)."""
    match = _ANY_MESSAGE.fullmatch(text.strip())
    return match is not None and match["topic"] == topic
