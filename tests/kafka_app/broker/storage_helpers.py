"""Helpers for the storage tests: build real v2 record batches with chosen timestamps.

Usage: `batch([b"a", b"b"], timestamps=[1000, 1001])` -> bytes of one batch, base offset 0.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafka.record.default_records import DefaultRecordBatch, DefaultRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

__all__ = ["batch", "batch_of", "decode", "decode_batches"]


def batch(values: Sequence[bytes], timestamps: Sequence[int] | None = None) -> bytes:
    """One uncompressed v2 batch holding `values`, as a producer would send it."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 24,
    )
    stamps = timestamps if timestamps is not None else [1_000 + i for i in range(len(values))]
    for delta, (value, timestamp) in enumerate(zip(values, stamps, strict=True)):
        builder.append(delta, timestamp, None, value, [])
    return bytes(builder.build())


def batch_of(count: int, first_timestamp: int = 1_000, value_size: int = 10) -> bytes:
    """A batch of `count` records with timestamps first_timestamp, first_timestamp + 1, ..."""
    return batch([b"v" * value_size] * count, [first_timestamp + i for i in range(count)])


def decode_batches(data: bytes) -> list[DefaultRecordBatch]:
    """The batches of a read() result, each checked against its CRC."""
    batches = list(MemoryRecords(data))
    for each in batches:
        assert each.validate_crc(), f"batch at offset {each.base_offset} fails its CRC"
    return batches


def decode(data: bytes) -> list[tuple[int, int, bytes]]:
    """(offset, timestamp, value) of every record of a read() result."""
    return [
        (record.offset, record.timestamp, record.value)
        for each in decode_batches(data)
        for record in each
    ]
