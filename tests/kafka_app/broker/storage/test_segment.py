"""Segment files: naming, appending, one-read lookups, and recovery of a torn tail."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafka_app.broker.errors import CorruptRecord
from kafka_app.broker.storage.checksum import crc32c
from kafka_app.broker.storage.record_batch import iter_batches, parse_header, set_base_offset
from kafka_app.broker.storage.segment import Segment, segment_file_name
from tests.kafka_app.broker.storage_helpers import batch, batch_of, decode


def _stamped(data: bytes, base_offset: int) -> tuple[bytearray, list]:
    """Stamp offsets as the log would and return the bytes plus their headers."""
    buffer = bytearray(data)
    headers = []
    offset = base_offset
    for header in iter_batches(data):
        set_base_offset(buffer, header, offset)
        headers.append(parse_header(buffer, header.position))
        offset = headers[-1].last_offset + 1
    return buffer, headers


def _filled(folder: Path, base: int = 0, batches: int = 3, per_batch: int = 4) -> Segment:
    segment = Segment.create(folder, base, now_ms=0)
    offset = base
    for index in range(batches):
        data, headers = _stamped(batch_of(per_batch, first_timestamp=1_000 * (index + 1)), offset)
        segment.append(data, headers, now_ms=0)
        offset = headers[-1].last_offset + 1
    return segment


def test_file_is_named_by_twenty_digit_base_offset(tmp_path: Path) -> None:
    assert segment_file_name(42) == "00000000000000000042.log"
    segment = Segment.create(tmp_path, 42, now_ms=0)
    assert segment.path == tmp_path / "00000000000000000042.log"
    assert segment.is_empty and segment.next_offset == 42
    segment.close()


def test_append_indexes_batches_and_read_returns_whole_batches(tmp_path: Path) -> None:
    segment = _filled(tmp_path, base=10)
    assert segment.next_offset == 22
    assert segment.size == os.path.getsize(segment.path)
    assert segment.max_timestamp == 3_003 and segment.rolling_timestamp == 1_003
    # offset 15 sits in the second batch (14..17): the read starts at that batch
    records = decode(segment.read(15, 10_000))
    assert [offset for offset, _, _ in records] == list(range(14, 22))
    segment.close()


def test_read_respects_max_bytes_but_returns_at_least_one_batch(tmp_path: Path) -> None:
    segment = _filled(tmp_path)
    one_batch = len(segment.read(0, 1))
    assert [o for o, _, _ in decode(segment.read(0, 1))] == [0, 1, 2, 3]
    assert len(segment.read(0, 2 * one_batch)) == 2 * one_batch
    assert len(segment.read(0, 2 * one_batch + one_batch // 2)) == 2 * one_batch
    assert segment.read(12, 100) == b""
    segment.close()


def test_recover_rebuilds_the_same_index(tmp_path: Path) -> None:
    written = _filled(tmp_path, base=5)
    expected = (written.next_offset, written.size, written.max_timestamp, written.read(9, 1 << 20))
    written.close()
    recovered = Segment.recover(written.path)
    assert (
        recovered.next_offset,
        recovered.size,
        recovered.max_timestamp,
        recovered.read(9, 1 << 20),
    ) == expected
    assert recovered.truncated_bytes == 0


@pytest.mark.parametrize("tail", ["half a batch", "garbage", "bad crc"])
def test_recover_truncates_a_torn_or_corrupt_last_batch(tmp_path: Path, tail: str) -> None:
    segment = _filled(tmp_path)
    good_size = segment.size
    segment.close()
    extra, _ = _stamped(batch_of(4), 12)
    if tail == "half a batch":
        extra = extra[: len(extra) // 2]
    elif tail == "garbage":
        extra = bytearray(os.urandom(100))
    else:
        extra[-1] ^= 0xFF
    with open(segment.path, "ab") as file:
        file.write(extra)
    recovered = Segment.recover(segment.path)
    assert recovered.size == good_size == os.path.getsize(segment.path)
    assert recovered.truncated_bytes == len(extra)
    assert recovered.next_offset == 12


def test_parse_header_rejects_other_magic_and_truncation() -> None:
    data = bytearray(batch_of(2))
    with pytest.raises(CorruptRecord, match="truncated"):
        parse_header(data[:40], 0)
    with pytest.raises(CorruptRecord, match="truncated"):
        parse_header(data[:-1], 0)
    data[16] = 1  # the magic byte
    with pytest.raises(CorruptRecord, match="magic 1"):
        parse_header(data, 0)


def test_stamping_the_base_offset_keeps_the_crc_valid() -> None:
    data, _ = _stamped(batch([b"a", b"b"]), 1_234_567)
    assert [offset for offset, _, _ in decode(bytes(data))] == [1_234_567, 1_234_568]


def test_crc32c_is_castagnoli() -> None:
    # The standard check value of CRC-32C, over bytes and over a memoryview of a batch.
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(memoryview(b"123456789")) == 0xE3069283
