"""Durability decisions of the data folder: clean-shutdown marker, recovery point, a damaged
topics.json, batch headers checked against their content, and idempotent producers' state
surviving a restart (a resend after a lost acknowledgement is not written twice)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafka_app.broker.errors import (
    InvalidPartitions,
    InvalidProducerEpoch,
    InvalidRecord,
    OutOfOrderSequence,
    StorageCorrupt,
)
from kafka_app.broker.storage.checksum import crc32c
from kafka_app.broker.storage.data_dir import CLEAN_SHUTDOWN_FILE, MAX_PARTITIONS, Storage
from tests.kafka_app.broker.storage_helpers import batch_of, decode


def _idempotent(producer_id: int, epoch: int, sequence: int, count: int = 3) -> bytes:
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        batch_size=1 << 20,
    )
    for delta in range(count):
        builder.append(delta, 1_000 + delta, None, b"v%d" % (sequence + delta), [])
    return bytes(builder.build())


def _patched(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite one header field and re-sign the CRC, as a buggy (not a damaged) client would."""
    patched = bytearray(data)
    struct.pack_into(fmt, patched, offset, value)
    struct.pack_into(">I", patched, 17, crc32c(memoryview(patched)[21:]))
    return bytes(patched)


# ---- clean shutdown and recovery point ------------------------------------------------------------


def test_a_clean_close_leaves_the_marker_and_a_start_takes_it_away(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        storage.partition("events", 0).append(batch_of(4))
    assert (tmp_path / CLEAN_SHUTDOWN_FILE).exists()
    storage = Storage(tmp_path)
    assert storage.clean_start
    assert not (tmp_path / CLEAN_SHUTDOWN_FILE).exists()  # a crash from now on is unclean
    assert storage.partition("events", 0).high_watermark == 4
    storage.close()


def test_after_an_unclean_stop_a_torn_tail_is_cut_and_the_rest_kept(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        storage.partition("events", 0).append(batch_of(4))
    (tmp_path / CLEAN_SHUTDOWN_FILE).unlink()  # as a kill -9 leaves it
    segment = tmp_path / "events-0" / "00000000000000000000.log"
    with open(segment, "ab") as file:
        file.write(batch_of(2)[:-3])
    with Storage(tmp_path) as storage:
        assert not storage.clean_start
        assert storage.partition("events", 0).high_watermark == 4
    assert segment.stat().st_size == len(batch_of(4))


# ---- topics.json -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{not json", "is not valid JSON"),
        ('["events"]', 'no "topics" object'),
        ('{"topics": {"../x": {"partitions": 1}}}', "illegal topic"),
        ('{"topics": {"events": {"partitions": 0}}}', "has partitions 0"),
        ('{"topics": {"events": {"partitions": "2"}}}', "has partitions '2'"),
        ('{"topics": {"events": {"partitions": 1, "configs": {"retention.ms": 5}}}}', "configs"),
    ],
)
def test_a_bad_topics_file_is_one_line_and_left_as_it_is(
    tmp_path: Path, text: str, needle: str
) -> None:
    (tmp_path / "topics.json").write_text(text)
    with pytest.raises(StorageCorrupt, match=needle) as raised:
        Storage(tmp_path)
    assert "\n" not in str(raised.value)
    assert (tmp_path / "topics.json").read_text() == text
    assert not (tmp_path.parent / "x").exists() and not (tmp_path / "events-0").exists()


def test_a_missing_topics_file_with_data_beside_it_refuses_to_start(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 2, {})
        storage.partition("events", 1).append(batch_of(3))
    (tmp_path / "topics.json").unlink()
    with pytest.raises(StorageCorrupt, match=r"topics.json is missing .*\(events-1\)"):
        Storage(tmp_path)
    assert (tmp_path / "events-1" / "00000000000000000000.log").stat().st_size > 0
    assert not (tmp_path / "topics.json").exists()


def test_create_topic_refuses_too_many_partitions_before_any_folder(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        with pytest.raises(InvalidPartitions, match=str(MAX_PARTITIONS)):
            storage.create_topic("events", MAX_PARTITIONS + 1, {})
        assert not list(tmp_path.glob("events-*"))
        assert (
            "events"
            not in json.loads(
                (tmp_path / "topics.json").read_text()
                if (tmp_path / "topics.json").exists()
                else '{"topics": {}}'
            )["topics"]
        )


# ---- batch headers against their content -----------------------------------------------------------


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "needle"),
    [
        (57, ">i", 5, "reports 5 records but its offsets span 3"),
        (57, ">i", 0, "reports 0 records"),
        (23, ">i", 7, "reports 3 records but its offsets span 8"),
        (21, ">h", 7, "compression codec 7"),
        (21, ">h", 0x20, "control batch"),
    ],
)
def test_a_header_that_contradicts_its_batch_is_refused(
    tmp_path: Path, offset: int, fmt: str, value: int, needle: str
) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        log = storage.partition("events", 0)
        with pytest.raises(InvalidRecord, match=needle):
            log.append(_patched(batch_of(3), offset, fmt, value))
        assert log.high_watermark == 0


def test_a_count_the_records_do_not_match_is_refused(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        log = storage.partition("events", 0)
        claims_four = _patched(_patched(batch_of(3), 57, ">i", 4), 23, ">i", 3)
        with pytest.raises(InvalidRecord, match="reports 4 records but holds 3"):
            log.append(claims_four)
        long_first = _patched(batch_of(3), 61, ">B", 0x7E)  # first record's length: 63, too long
        with pytest.raises(InvalidRecord, match="do not add up"):
            log.append(long_first)
        assert log.high_watermark == 0


def test_a_producer_id_without_a_sequence_is_refused(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        with pytest.raises(InvalidRecord, match="sequence -1"):
            storage.partition("events", 0).append(_patched(_idempotent(7, 0, 0), 53, ">i", -1))


# ---- idempotent producers --------------------------------------------------------------------------


def test_a_resent_batch_gets_its_first_offset_even_after_an_unclean_restart(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        log = storage.partition("events", 0)
        assert log.append(_idempotent(42, 0, 0)) == 0
        assert log.append(_idempotent(42, 0, 3)) == 3
        assert log.append(_idempotent(42, 0, 3)) == 3  # resent while up: not written again
    (tmp_path / CLEAN_SHUTDOWN_FILE).unlink()
    with Storage(tmp_path) as storage:
        log = storage.partition("events", 0)
        assert log.append(_idempotent(42, 0, 3)) == 3  # resent after the restart
        assert log.append(_idempotent(42, 0, 6)) == 6
        assert [v for _, _, v in decode(log.read(0, 1 << 20))] == [b"v%d" % i for i in range(9)]


def test_a_sequence_gap_and_a_fenced_epoch_are_refused(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        log = storage.partition("events", 0)
        log.append(_idempotent(42, 1, 0))
        with pytest.raises(OutOfOrderSequence, match="sent sequence 5, expected 3"):
            log.append(_idempotent(42, 1, 5))
        with pytest.raises(InvalidProducerEpoch):
            log.append(_idempotent(42, 0, 3))
        assert log.append(_idempotent(42, 2, 0)) == 3  # a bumped epoch starts again at 0
        assert log.high_watermark == 6
