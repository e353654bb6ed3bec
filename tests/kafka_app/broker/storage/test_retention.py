"""Retention as Apache Kafka does it, driven by a hand-moved clock instead of waiting."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_app.broker.errors import OffsetOutOfRange
from kafka_app.broker.storage.clock import ManualClock
from kafka_app.broker.storage.data_dir import Storage
from kafka_app.broker.storage.retention import SegmentSummary, expired_by_size, expired_by_time
from tests.kafka_app.broker.storage_helpers import batch_of

BATCH = len(batch_of(4))
MINUTE = 60_000
T0 = 1_700_000_000_000


def _summary(base: int, size: int, largest: int, empty: bool = False) -> SegmentSummary:
    return SegmentSummary(base, size, largest, empty)


def test_time_rule_stops_at_the_first_segment_that_is_not_expired() -> None:
    segments = [
        _summary(0, 10, 100),
        _summary(4, 10, 900),
        _summary(8, 10, 150),
        _summary(12, 0, -1, True),
    ]
    assert expired_by_time(segments, retention_ms=500, now_ms=1_000) == 1  # 900 stops the walk
    assert expired_by_time(segments, retention_ms=99, now_ms=1_000) == 3  # empty active stays
    assert expired_by_time(segments, retention_ms=900, now_ms=1_000) == 0  # 1000 - 100 is not > 900
    assert expired_by_time(segments, retention_ms=-1, now_ms=10**12) == 0


def test_size_rule_deletes_only_while_the_rest_stays_at_or_above_the_limit() -> None:
    segments = [_summary(0, 100, 0), _summary(4, 100, 0), _summary(8, 50, 0)]
    assert expired_by_size(segments, retention_bytes=150) == 1  # 250 -> 150
    assert expired_by_size(segments, retention_bytes=149) == 1  # deleting two would leave 50
    assert expired_by_size(segments, retention_bytes=50) == 2
    assert expired_by_size(segments, retention_bytes=0) == 3  # the non-empty active segment too
    assert expired_by_size(segments, retention_bytes=250) == 0
    assert expired_by_size(segments, retention_bytes=-1) == 0


def _storage_with_segments(tmp_path: Path, clock: ManualClock, **configs: str) -> Storage:
    """A topic whose partition 0 holds three one-batch segments written a minute apart."""
    storage = Storage(tmp_path, clock)
    base = {"segment.bytes": str(BATCH)}
    base.update({key.replace("_", "."): value for key, value in configs.items()})
    storage.create_topic("t", 1, base)
    log = storage.partition("t", 0)
    for minute in range(3):
        log.append(batch_of(4, first_timestamp=T0 + minute * MINUTE))
    assert [s.base_offset for s in log.segments] == [0, 4, 8]
    return storage


def test_retention_ms_deletes_expired_segments_and_moves_log_start(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(tmp_path, clock, retention_ms=str(2 * MINUTE))
    log = storage.partition("t", 0)
    clock.now_ms = T0 + 2 * MINUTE + 3  # first segment's largest timestamp is T0 + 3
    assert storage.enforce_retention() == []  # not more than retention.ms yet
    clock.advance(1)
    [event] = storage.enforce_retention()
    assert (event.topic, event.partition, event.reason) == ("t", 0, "retention.ms")
    assert event.deleted_segments == [0]
    assert (event.old_log_start_offset, event.new_log_start_offset) == (0, 4)
    assert log.log_start_offset == 4
    with pytest.raises(OffsetOutOfRange):  # readers stop seeing deleted data at once
        log.read(0, 1000)
    storage.close()


def test_expired_active_segment_is_rolled_then_deleted(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(tmp_path, clock, retention_ms=str(MINUTE))
    clock.advance(10 * MINUTE)
    [event] = storage.enforce_retention()
    assert event.deleted_segments == [0, 4, 8]
    log = storage.partition("t", 0)
    assert (log.log_start_offset, log.high_watermark) == (12, 12)
    assert [s.base_offset for s in log.segments] == [12]
    assert storage.enforce_retention() == []  # an empty active segment is never deleted
    storage.close()
    with Storage(tmp_path, clock) as reopened:  # the log end offset survives in the file name
        log = reopened.partition("t", 0)
        assert (log.log_start_offset, log.high_watermark) == (12, 12)
        assert log.append(batch_of(1)) == 12


def test_retention_bytes_deletes_oldest_segments_beyond_the_limit(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(tmp_path, clock, retention_bytes=str(BATCH + 1))
    [event] = storage.enforce_retention()
    assert event.reason == "retention.bytes"
    assert event.deleted_segments == [0]  # deleting 4 too would leave less than the limit
    assert storage.partition("t", 0).log_start_offset == 4
    storage.close()


def test_deleted_files_go_after_file_delete_delay(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(
        tmp_path, clock, retention_ms=str(MINUTE), file_delete_delay_ms="5000"
    )
    folder = tmp_path / "t-0"
    clock.advance(2 * MINUTE + 10)
    storage.enforce_retention()
    assert (folder / "00000000000000000000.log.deleted").exists()
    assert not (folder / "00000000000000000000.log").exists()
    clock.advance(5_000)
    storage.enforce_retention()
    assert not (folder / "00000000000000000000.log.deleted").exists()
    storage.close()


def test_log_start_after_retention_survives_reopen(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(tmp_path, clock, retention_ms=str(MINUTE))
    clock.now_ms = T0 + MINUTE + 10
    storage.enforce_retention()
    storage.close()
    with Storage(tmp_path, clock) as reopened:
        log = reopened.partition("t", 0)
        assert (log.log_start_offset, log.high_watermark) == (4, 12)
        assert [s.base_offset for s in log.segments] == [4, 8]


def test_negative_retention_ms_keeps_everything(tmp_path: Path) -> None:
    clock = ManualClock(T0 + 10 * MINUTE)
    storage = Storage(tmp_path, clock)
    storage.create_topic("keep", 1, {"retention.ms": "-1", "segment.bytes": str(BATCH)})
    log = storage.partition("keep", 0)
    log.append(batch_of(4, first_timestamp=0))
    log.append(batch_of(4, first_timestamp=0))
    assert storage.enforce_retention() == []
    assert log.log_start_offset == 0
    storage.close()


def test_altered_retention_applies_on_the_next_pass(tmp_path: Path) -> None:
    clock = ManualClock(T0 + 5 * MINUTE)
    storage = _storage_with_segments(tmp_path, clock)  # default retention: a week
    assert storage.enforce_retention() == []
    storage.alter_topic_config("t", {"retention.ms": str(4 * MINUTE)}, [])
    [event] = storage.enforce_retention()
    assert event.deleted_segments == [0]
    storage.close()


def test_leftover_deleted_files_are_removed_on_start(tmp_path: Path) -> None:
    clock = ManualClock(T0)
    storage = _storage_with_segments(tmp_path, clock, retention_ms=str(MINUTE))
    clock.advance(MINUTE + 10)
    storage.enforce_retention()
    storage.close()  # stopped before file.delete.delay.ms passed
    assert list((tmp_path / "t-0").glob("*.deleted"))
    Storage(tmp_path, clock).close()
    assert not list((tmp_path / "t-0").glob("*.deleted"))
