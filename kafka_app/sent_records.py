"""What the producer sent, record by record, as Kafka acknowledged it: the truth a query is
judged by.

For every message Kafka acknowledged, the producer appends one JSON line to
`<log-dir>/sent-records.jsonl`: the topic, partition, offset and timestamp Kafka gave it, and
its key and value as text. The oracle evaluates a user's query over these records
(scenarios' query oracle, through `python -m spark_app evaluate`): unlike a read of the topic,
they survive retention, and unlike the producer's console line they carry what a query reads
(the partition, the offset, the record's timestamp).

Usage:
    line = format_record(SentRecord("Experience", 0, 41, 1764410000123, "42", "42"))
    records = read_sent_records(log_dir / SENT_RECORDS_FILE)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["SENT_RECORDS_FILE", "SentRecord", "format_record", "parse_record", "read_sent_records"]

SENT_RECORDS_FILE = "sent-records.jsonl"


@dataclass(frozen=True)
class SentRecord:
    """One record as Kafka acknowledged it; key and value as the text they were sent as."""

    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    key: str | None
    value: str


def format_record(record: SentRecord) -> str:
    """The record as one JSON line (no newline)."""
    return json.dumps(asdict(record), separators=(",", ":"))


def parse_record(line: str) -> SentRecord | None:
    """A line read back; None for anything that is not a whole record (a torn last line)."""
    try:
        data = json.loads(line)
        return SentRecord(
            str(data["topic"]),
            int(data["partition"]),
            int(data["offset"]),
            int(data["timestamp_ms"]),
            None if data["key"] is None else str(data["key"]),
            str(data["value"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def read_sent_records(path: Path, topic: str | None = None) -> list[SentRecord]:
    """Every whole record in the file (of `topic` only, when given), in the order sent; none
    when there is no file."""
    if not path.exists():
        return []
    records = (parse_record(line) for line in path.read_text(encoding="utf-8").splitlines())
    return [r for r in records if r is not None and (topic is None or r.topic == topic)]
