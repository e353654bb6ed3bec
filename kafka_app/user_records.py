"""A user's own records for the producer to send instead of the counter (`--records FILE.jsonl`).

One JSON object per line:

    {"key": "zurich", "value": {"temp": 7.5}, "event_time": "2026-11-29T10:00:00Z"}

`key` (optional; text, or any JSON written as its JSON text), `value` (required; text, or any
JSON as its JSON text) and `event_time` (optional; ISO-8601, or milliseconds since the epoch),
which becomes the record's Kafka timestamp, so a query's watermark reads the user's event time.
The producer sends them in order at its interval and stops after the last. Enter marks the next
record's key with a leading "-", the playground's crash mark (docs/your-query.md), so a user's
key may not begin with "-" itself.

A file that cannot be sent is one line naming the file, the line and what to change, before
anything starts (RecordsFileError).

Usage: `records = read_user_records(Path("my-records.jsonl"))`
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from kafka_app.errors import ProducerAppError

__all__ = ["CRASH_MARK", "RecordsFileError", "UserRecord", "read_user_records"]

CRASH_MARK = "-"


class RecordsFileError(ProducerAppError):
    """A --records file the producer cannot send: which line, and what to change."""


@dataclass(frozen=True)
class UserRecord:
    """One record to send: key and value as the text Kafka gets, and its event time if any."""

    key: str | None
    value: str
    timestamp_ms: int | None = None

    def marked(self) -> UserRecord:
        """The record with the crash mark on its key (Enter in the producer)."""
        return UserRecord(CRASH_MARK + (self.key or ""), self.value, self.timestamp_ms)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _millis(value: Any, where: str) -> int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            pass
    raise RecordsFileError(
        f"{where}: event_time {value!r} is neither ISO-8601 (2026-11-29T10:00:00Z) nor "
        "milliseconds since the epoch"
    )


def _record(line: str, where: str) -> UserRecord:
    try:
        data = json.loads(line)
    except ValueError as error:
        raise RecordsFileError(f"{where}: not JSON ({error.msg}): one object per line") from error
    if not isinstance(data, dict) or "value" not in data:
        raise RecordsFileError(f'{where}: write an object with a "value" (and "key", "event_time")')
    key = None if data.get("key") is None else _text(data["key"])
    if key is not None and key.startswith(CRASH_MARK):
        raise RecordsFileError(
            f"{where}: the key {key!r} begins with {CRASH_MARK!r}, the playground's crash mark "
            "(Enter puts it there): give keys that do not"
        )
    stamp = data.get("event_time")
    return UserRecord(key, _text(data["value"]), None if stamp is None else _millis(stamp, where))


def read_user_records(path: Path) -> list[UserRecord]:
    """Every record of the file, in order; RecordsFileError in one line for a bad one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise RecordsFileError(f"--records {path}: cannot read it ({error.strerror})") from error
    records = [
        _record(line, f"{path}:{number}")
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]
    if not records:
        raise RecordsFileError(f"--records {path}: no records in it; one JSON object per line")
    return records
