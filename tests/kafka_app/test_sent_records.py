"""The producer's record of what Kafka acknowledged: written and read back by one owner."""

from __future__ import annotations

from pathlib import Path

from kafka_app.sent_records import SentRecord, format_record, parse_record, read_sent_records


def test_a_record_round_trips_through_its_line() -> None:
    record = SentRecord("Experience", 2, 41, 1764410000123, "-42", "42")
    assert parse_record(format_record(record)) == record
    assert "\n" not in format_record(record)


def test_a_record_without_a_key_round_trips() -> None:
    record = SentRecord("Experience", 0, 0, 1, None, '{"city": "Zürich"}')
    assert parse_record(format_record(record)) == record


def test_a_torn_last_line_and_other_topics_are_left_out(tmp_path: Path) -> None:
    path = tmp_path / "sent-records.jsonl"
    lines = [
        format_record(SentRecord(t, 0, o, 5, str(o), str(o)))
        for t, o in (("A", 0), ("B", 0), ("A", 1))
    ]
    path.write_text("\n".join(lines) + "\n" + lines[0][:20])
    assert [r.offset for r in read_sent_records(path, "A")] == [0, 1]
    assert read_sent_records(tmp_path / "none.jsonl") == []
