"""A user's own records: read, refused in one line where they cannot be sent, and sent as Kafka
stores them, with their event time as the record's timestamp and Enter's crash mark."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from kafka_app.cli import run_cli
from kafka_app.console import ProducerConsole
from kafka_app.producer import ProducerApp
from kafka_app.sent_records import SENT_RECORDS_FILE, read_sent_records
from kafka_app.settings import ProducerAppSettings
from kafka_app.user_records import RecordsFileError, UserRecord, read_user_records

LINES = [
    '{"key": "zurich", "value": {"temp": 7.5}, "event_time": "2026-11-29T10:00:00Z"}',
    '{"value": "no key here", "event_time": 1795946405000}',
    '{"key": 42, "value": "a number for a key"}',
]


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_records_read_as_the_text_kafka_gets_with_their_event_time(tmp_path: Path) -> None:
    records = read_user_records(write(tmp_path, LINES))
    assert records == [
        UserRecord("zurich", '{"temp":7.5}', 1795946400000),
        UserRecord(None, "no key here", 1795946405000),
        UserRecord("42", "a number for a key", None),
    ]
    assert records[0].marked().key == "-zurich"


@pytest.mark.parametrize(
    "line, says",
    [
        ("not json", "records.jsonl:1: not JSON"),
        ('{"key": "k"}', 'write an object with a "value"'),
        ('{"key": "-k", "value": 1}', "the playground's crash mark"),
        ('{"value": 1, "event_time": "yesterday"}', "neither ISO-8601"),
    ],
)
def test_a_record_that_cannot_be_sent_is_one_line_naming_its_line(
    tmp_path: Path, line: str, says: str
) -> None:
    with pytest.raises(RecordsFileError, match=says):
        read_user_records(write(tmp_path, [line]))


def test_the_producer_refuses_a_bad_file_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, ['{"key": "-k", "value": 1}'])
    assert run_cli(["--records", str(path), "--log-dir", str(tmp_path / "log")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "crash mark" in err[0]
    assert not (tmp_path / "log").exists()


def test_the_producer_sends_them_in_order_then_stops(embedded_broker, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    read_fd, write_fd = os.pipe()
    os.write(write_fd, b"\n")  # Enter: the first record's key gets the crash mark
    settings = ProducerAppSettings(
        bootstrap_servers=embedded_broker.bootstrap_servers,
        topic="Mine",
        interval_sec=0.05,
        log_dir=tmp_path / "log",
        records=write(tmp_path, LINES),
    )
    out = io.StringIO()
    sent = ProducerApp(settings, ProducerConsole(out, rich_output=False), stdin_fd=read_fd).run()
    os.close(write_fd)
    os.close(read_fd)
    assert sent == 3
    stored = read_sent_records(tmp_path / "log" / SENT_RECORDS_FILE, "Mine")
    assert [(r.key, r.value) for r in stored] == [
        ("-zurich", '{"temp":7.5}'),
        (None, "no key here"),
        ("42", "a number for a key"),
    ]
    assert [r.timestamp_ms for r in stored[:2]] == [1795946400000, 1795946405000]
    assert "all 3 record(s)" in out.getvalue()
