"""PartitionLog: offsets, rolling, reads, timestamps, DeleteRecords and recovery on reopen."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafka_app.broker.errors import CorruptRecord, OffsetOutOfRange, RecordTooLarge, StorageCorrupt
from kafka_app.broker.storage.clock import ManualClock
from kafka_app.broker.storage.log import (
    LOG_START_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    PartitionLog,
)
from kafka_app.broker.storage.topic_config import TopicConfig
from tests.kafka_app.broker.storage_helpers import batch, batch_of, decode

BATCH_OF_4 = len(batch_of(4))


def _open(folder: Path, clock: ManualClock | None = None, **configs: str) -> PartitionLog:
    config = TopicConfig.from_strings(
        {key.replace("_", "."): value for key, value in configs.items()}
    )
    return PartitionLog.open(folder, "t", 0, config, clock or ManualClock(10_000))


def _closed_three_segments(folder: Path) -> list[Path]:
    """Write three one-batch segments (offsets 0, 4, 8), close the log, return their files."""
    log = _open(folder, segment_bytes=str(BATCH_OF_4))
    for _ in range(3):
        log.append(batch_of(4))
    paths = [segment.path for segment in log.segments]
    log.close()
    return paths


def _offsets(data: bytes) -> list[int]:
    return [offset for offset, _, _ in decode(data)]


def test_append_assigns_consecutive_offsets_per_batch(tmp_path: Path) -> None:
    log = _open(tmp_path)
    assert log.append(batch_of(3)) == 0
    assert log.append(batch_of(2) + batch_of(4)) == 3  # two batches in one produce
    assert (log.log_start_offset, log.high_watermark) == (0, 9)
    assert _offsets(log.read(0, 1 << 20)) == list(range(9))
    log.close()


def test_a_corrupt_batch_rejects_the_whole_append(tmp_path: Path) -> None:
    log = _open(tmp_path)
    bad = bytearray(batch_of(2))
    bad[-1] ^= 0x01
    with pytest.raises(CorruptRecord, match="CRC"):
        log.append(batch_of(2) + bytes(bad))
    with pytest.raises(CorruptRecord):
        log.append(batch_of(2)[:-5])
    with pytest.raises(CorruptRecord):
        log.append(b"")
    assert log.high_watermark == 0 and log.size_bytes == 0
    log.close()


def test_batch_larger_than_max_message_bytes_is_refused(tmp_path: Path) -> None:
    log = _open(tmp_path, max_message_bytes="200")
    with pytest.raises(RecordTooLarge, match="max.message.bytes"):
        log.append(batch_of(1, value_size=300))
    log.close()


def test_read_mid_batch_returns_the_containing_batch(tmp_path: Path) -> None:
    log = _open(tmp_path)
    for _ in range(3):
        log.append(batch_of(4))
    assert _offsets(log.read(6, BATCH_OF_4)) == [4, 5, 6, 7]
    log.close()


def test_read_max_bytes_whole_batches_at_least_one(tmp_path: Path) -> None:
    log = _open(tmp_path)
    for _ in range(3):
        log.append(batch_of(4))
    assert _offsets(log.read(0, 0)) == [0, 1, 2, 3]
    assert _offsets(log.read(0, 2 * BATCH_OF_4 + 10)) == list(range(8))
    assert _offsets(log.read(0, 1 << 20)) == list(range(12))
    log.close()


def test_read_at_high_watermark_is_empty_and_beyond_is_out_of_range(tmp_path: Path) -> None:
    log = _open(tmp_path)
    log.append(batch_of(4))
    assert log.read(4, 1000) == b""
    with pytest.raises(OffsetOutOfRange) as raised:
        log.read(5, 1000)
    assert (raised.value.log_start_offset, raised.value.high_watermark) == (0, 4)
    assert raised.value.error_code == 1
    log.close()


def test_rolls_when_segment_bytes_would_be_passed(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(2 * BATCH_OF_4))
    for _ in range(5):
        log.append(batch_of(4))
    assert [s.base_offset for s in log.segments] == [0, 8, 16]
    assert sorted(p.name for p in tmp_path.glob("*.log")) == [
        "00000000000000000000.log",
        "00000000000000000008.log",
        "00000000000000000016.log",
    ]
    # a read stops at the end of the segment holding the offset; the next read continues
    assert _offsets(log.read(4, 1 << 20)) == [4, 5, 6, 7]
    assert _offsets(log.read(8, 1 << 20)) == list(range(8, 16))
    log.close()


def test_one_append_of_several_batches_may_span_a_roll(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(2 * BATCH_OF_4))
    assert log.append(b"".join(batch_of(4) for _ in range(5))) == 0
    assert [s.base_offset for s in log.segments] == [0, 8, 16]
    assert _offsets(log.read(0, 1 << 20)) == list(range(8))
    log.close()


def test_a_batch_bigger_than_segment_bytes_still_goes_into_an_empty_segment(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes="100")
    log.append(batch_of(4))
    log.append(batch_of(4))
    assert [s.base_offset for s in log.segments] == [0, 4]
    log.close()


def test_rolls_when_batch_is_newer_than_segment_ms(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_ms="1000")
    log.append(batch([b"a"], [5_000]))
    log.append(batch([b"b"], [6_000]))  # exactly segment.ms later: no roll
    log.append(batch([b"c"], [6_001]))  # more than segment.ms after the first batch
    log.append(batch([b"d"], [6_500]))
    assert [s.base_offset for s in log.segments] == [0, 2]
    log.close()


def test_offset_for_timestamp(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(BATCH_OF_4))
    log.append(batch_of(4, first_timestamp=1_000))  # offsets 0..3, 1000..1003
    log.append(batch_of(4, first_timestamp=2_000))  # offsets 4..7, 2000..2003
    assert log.offset_for_timestamp(0) == (0, 1_000)
    assert log.offset_for_timestamp(1_002) == (2, 1_002)
    assert log.offset_for_timestamp(1_500) == (4, 2_000)
    assert log.offset_for_timestamp(2_004) is None
    log.delete_records(5)
    assert log.offset_for_timestamp(0) == (5, 2_001)
    log.close()


def test_delete_records_mid_batch_persists_over_reopen(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(BATCH_OF_4))
    for _ in range(3):
        log.append(batch_of(4))  # segments 0, 4, 8
    assert log.delete_records(6) == 6
    assert [s.base_offset for s in log.segments] == [4, 8]  # whole segment 0..3 went
    with pytest.raises(OffsetOutOfRange):
        log.read(5, 1000)
    assert _offsets(log.read(6, 1 << 20)) == [4, 5, 6, 7]  # whole batch, client skips 4 and 5
    assert log.delete_records(2) == 6  # moving backwards changes nothing
    log.close()
    reopened = _open(tmp_path)
    assert (reopened.log_start_offset, reopened.high_watermark) == (6, 12)
    assert (tmp_path / LOG_START_CHECKPOINT).read_text().strip() == "6"
    reopened.close()


def test_delete_records_to_high_watermark_keeps_the_active_segment(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(BATCH_OF_4))
    log.append(batch_of(4))
    log.append(batch_of(4))
    assert log.delete_records(-1) == 8
    assert [s.base_offset for s in log.segments] == [4]
    assert log.read(8, 1000) == b""
    with pytest.raises(OffsetOutOfRange):
        log.delete_records(9)
    log.append(batch_of(1))
    assert _offsets(log.read(8, 1000)) == [8]
    log.close()


def test_reopen_truncates_a_torn_last_batch_and_appends_after_it(tmp_path: Path) -> None:
    log = _open(tmp_path)
    log.append(batch_of(4))
    log.append(batch_of(4))
    active = log.segments[-1].path
    log.close()
    with open(active, "ab") as file:  # a crash in the middle of writing a third batch
        file.write(batch_of(4)[:30])
    reopened = _open(tmp_path)
    assert reopened.high_watermark == 8
    assert os.path.getsize(active) == 2 * BATCH_OF_4
    assert reopened.append(batch_of(1)) == 8
    assert _offsets(reopened.read(0, 1 << 20)) == list(range(9))
    reopened.close()


def test_corruption_in_an_older_unflushed_segment_refuses_to_start_and_deletes_nothing(
    tmp_path: Path,
) -> None:
    first = _closed_three_segments(tmp_path)[0]
    (tmp_path / RECOVERY_POINT_CHECKPOINT).unlink()  # as if killed before any flush
    data = bytearray(first.read_bytes())
    data[-1] ^= 0xFF
    first.write_bytes(data)
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.glob("*.log"))
    with pytest.raises(StorageCorrupt, match=f"{first.name} is damaged at byte 0"):
        _open(tmp_path)
    assert sorted((p.name, p.stat().st_size) for p in tmp_path.glob("*.log")) == before


def test_a_segment_cut_short_below_the_recovery_point_refuses_to_start(tmp_path: Path) -> None:
    middle = _closed_three_segments(tmp_path)[1]
    os.truncate(middle, BATCH_OF_4 - 5)
    with pytest.raises(StorageCorrupt, match=middle.name):
        _open(tmp_path)
    assert len(list(tmp_path.glob("*.log"))) == 3


def test_flushed_segments_are_not_crc_checked_again(tmp_path: Path) -> None:
    # Kafka trusts what it flushed (below the recovery point): a restart reads headers only.
    first = _closed_three_segments(tmp_path)[0]
    assert (tmp_path / RECOVERY_POINT_CHECKPOINT).read_text().strip() == "12"
    data = bytearray(first.read_bytes())
    data[-1] ^= 0xFF  # a record byte: the header walk cannot see it, only a CRC could
    first.write_bytes(data)
    reopened = _open(tmp_path)
    assert reopened.high_watermark == 12
    reopened.close()


def test_a_roll_flushes_the_old_segment_and_moves_the_recovery_point(tmp_path: Path) -> None:
    log = _open(tmp_path, segment_bytes=str(BATCH_OF_4))
    log.append(batch_of(4))
    assert not (tmp_path / RECOVERY_POINT_CHECKPOINT).exists()
    log.append(batch_of(4))
    assert (tmp_path / RECOVERY_POINT_CHECKPOINT).read_text().strip() == "4"
    log.close()
