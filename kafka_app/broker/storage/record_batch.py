"""The v2 record-batch header: the only part of Kafka's data format that storage needs to read.

Storage never decodes records. It reads the fixed 61-byte header of each batch (offsets, sizes,
timestamps), checks the CRC-32C, and stamps offsets by overwriting the first 8 bytes, which lie
outside the CRC range. kafka-python's `DefaultRecordBatch` reads the same header; parsing it with
one `struct` call here keeps appends at a few microseconds per batch.

Usage: `for header in iter_batches(produce_records): print(header.base_offset, header.size)`
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from kafka_app.broker.errors import CorruptRecord, InvalidRecord
from kafka_app.broker.storage.checksum import crc32c

__all__ = [
    "BatchHeader",
    "HEADER_SIZE",
    "LOG_OVERHEAD",
    "iter_batches",
    "parse_header",
    "check_crc",
    "check_content",
    "set_base_offset",
]

# base offset, batch length, leader epoch, magic, crc, attributes, last offset delta,
# first timestamp, max timestamp, producer id, producer epoch, base sequence, records count
_HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = _HEADER.size  # 61
LOG_OVERHEAD = 12  # base offset + batch length: the part not counted in batch length
_CRC_START = 21  # the CRC covers everything from the attributes field on
_BASE_OFFSET = struct.Struct(">q")
_MAGIC_V2 = 2
_COMPRESSION_MASK = 0x07  # attributes bits 0-2: none, gzip, snappy, lz4, zstd
_KNOWN_COMPRESSIONS = 4
_CONTROL_FLAG = 0x20  # attributes bit 5: transaction markers, written only by the coordinator


@dataclass(frozen=True, slots=True)
class BatchHeader:
    """Where one batch sits in a buffer and what storage needs to know about it."""

    position: int
    size: int  # whole batch, LOG_OVERHEAD included
    base_offset: int
    last_offset_delta: int
    crc: int
    first_timestamp: int
    max_timestamp: int
    records_count: int
    attributes: int = 0
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta


def parse_header(buffer: bytes | bytearray | memoryview, position: int) -> BatchHeader:
    """Parse the header of the batch at `position`; raises CorruptRecord if it cannot be whole.

    Only the header is read: whether the batch body is all there is checked against `size`.
    """
    remaining = len(buffer) - position
    if remaining < HEADER_SIZE:
        raise CorruptRecord(
            f"truncated record batch at byte {position}: "
            f"{remaining} bytes left, a header needs {HEADER_SIZE}"
        )
    (
        base_offset,
        length,
        _epoch,
        magic,
        crc,
        attributes,
        last_offset_delta,
        first_ts,
        max_ts,
        pid,
        pepoch,
        seq,
        count,
    ) = _HEADER.unpack_from(buffer, position)
    if magic != _MAGIC_V2:
        raise CorruptRecord(
            f"record batch at byte {position} has magic {magic}; only v2 is supported"
        )
    size = LOG_OVERHEAD + length
    if size < HEADER_SIZE or last_offset_delta < 0 or count < 0:
        raise CorruptRecord(
            f"record batch at byte {position} has an impossible header "
            f"(length {length}, last offset delta {last_offset_delta})"
        )
    if size > remaining:
        raise CorruptRecord(
            f"truncated record batch at byte {position}: needs {size} bytes, {remaining} left"
        )
    return BatchHeader(
        position,
        size,
        base_offset,
        last_offset_delta,
        crc,
        first_ts,
        max_ts,
        count,
        attributes,
        pid,
        pepoch,
        seq,
    )


def check_crc(buffer: bytes | bytearray | memoryview, header: BatchHeader) -> None:
    """Raise CorruptRecord unless the batch's stored CRC-32C matches its bytes."""
    view = memoryview(buffer)[header.position + _CRC_START : header.position + header.size]
    if crc32c(view) != header.crc:
        raise CorruptRecord(f"record batch at byte {header.position} fails its CRC check")


def check_content(buffer: bytes | bytearray | memoryview, header: BatchHeader) -> None:
    """Kafka's LogValidator.validateBatch for a client's batch: raises InvalidRecord.

    The header must agree with itself and with the records: a count that matches the offset
    range, a compression codec a consumer can decode, no control batch, a sequence number wherever
    a producer id is set; in an uncompressed batch the records, hopped over by their length
    prefixes, must be exactly `records_count` and fill the batch (compressed bodies stay opaque).
    """
    at = f"record batch at byte {header.position}"
    if header.records_count <= 0:
        raise InvalidRecord(
            f"{at} reports {header.records_count} records; a batch holds at least one"
        )
    if header.records_count != header.last_offset_delta + 1:
        raise InvalidRecord(
            f"{at} reports {header.records_count} records but its offsets span "
            f"{header.last_offset_delta + 1} (last offset delta {header.last_offset_delta})"
        )
    codec = header.attributes & _COMPRESSION_MASK
    if codec > _KNOWN_COMPRESSIONS:
        raise InvalidRecord(
            f"{at} names compression codec {codec}; known are 0-4 (none, gzip, snappy, lz4, zstd)"
        )
    if header.attributes & _CONTROL_FLAG:
        raise InvalidRecord(f"{at} is a control batch; clients may not write control records")
    if header.producer_id >= 0 and header.base_sequence < 0:
        raise InvalidRecord(
            f"{at} has producer id {header.producer_id} but sequence {header.base_sequence}"
        )
    if codec == 0:
        found = _count_records(buffer, header.position + HEADER_SIZE, header.position + header.size)
        if found < 0:
            raise InvalidRecord(f"{at} has records whose lengths do not add up to the batch")
        if found != header.records_count:
            raise InvalidRecord(f"{at} reports {header.records_count} records but holds {found}")


def _count_records(buffer: bytes | bytearray | memoryview, position: int, end: int) -> int:
    """Hop over records by their zigzag-varint length prefix; -1 if they do not end at `end`.

    About 0.2 microseconds a record: the price of refusing a batch whose count is a lie.
    """
    count = 0
    while position < end:
        shift = value = 0
        while True:
            if position >= end or shift > 28:
                return -1
            byte = buffer[position]
            position += 1
            value |= (byte & 0x7F) << shift
            if byte < 0x80:
                break
            shift += 7
        length = (value >> 1) ^ -(value & 1)
        if length <= 0:
            return -1
        position += length
        count += 1
    return count if position == end else -1


def iter_batches(buffer: bytes | bytearray | memoryview) -> Iterator[BatchHeader]:
    """Every batch of a buffer that must hold whole, valid batches only (e.g. a Produce request)."""
    position = 0
    while position < len(buffer):
        header = parse_header(buffer, position)
        check_crc(buffer, header)
        yield header
        position += header.size


def set_base_offset(buffer: bytearray, header: BatchHeader, base_offset: int) -> None:
    """Stamp the broker-assigned offset; the CRC stays valid because it does not cover it."""
    _BASE_OFFSET.pack_into(buffer, header.position, base_offset)
