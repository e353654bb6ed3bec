"""Fetch responses encoded without copying their records.

kafka-python's codec writes a message into a per-thread buffer that grows to the largest message
ever encoded and keeps that size, then copies the result out: a 55 MiB fetch answer cost 55 MiB
held for good plus two transient copies. Here the fixed fields are encoded into small byte
strings and each partition's records go into the answer as the very bytes storage read, so the
connection writes them straight to the socket. The layout is Kafka's FetchResponse schema for
the versions served (4-12; 12 is flexible: compact lengths and empty tagged-field sections).
A test holds the result byte for byte to the codec's for every version.

Usage: `parts = encode_fetch_response(response, 12)`  # b"".join(parts) == response.encode(version=12)
"""

from __future__ import annotations

import struct

from kafka.protocol.consumer.fetch import FetchResponse

__all__ = ["encode_fetch_response"]

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_NO_TAGS = b"\x00"
FLEXIBLE_FROM = 12


def encode_fetch_response(response: FetchResponse, version: int) -> list[bytes]:
    """The response body as a list of byte strings; records are included by reference."""
    flexible = version >= FLEXIBLE_FROM
    head = bytearray(_INT32.pack(response.throttle_time_ms))
    if version >= 7:
        head += _INT16.pack(response.error_code) + _INT32.pack(response.session_id)
    head += _count(len(response.responses), flexible)
    parts: list[bytes] = []
    for topic in response.responses:
        head += _string(topic.topic, flexible) + _count(len(topic.partitions), flexible)
        for partition in topic.partitions:
            head += _partition_fields(partition, version, flexible)
            records = partition.records
            head += _records_length(records, flexible)
            parts.append(bytes(head))
            if records:
                parts.append(records)  # as storage read it: no copy
            head = bytearray(_NO_TAGS if flexible else b"")
        if flexible:
            head += _NO_TAGS
    if flexible:
        head += _NO_TAGS
    parts.append(bytes(head))
    return parts


def _partition_fields(
    partition: FetchResponse.FetchableTopicResponse.PartitionData, version: int, flexible: bool
) -> bytes:
    fields = bytearray(_INT32.pack(partition.partition_index))
    fields += _INT16.pack(partition.error_code) + _INT64.pack(partition.high_watermark)
    fields += _INT64.pack(partition.last_stable_offset)
    if version >= 5:
        fields += _INT64.pack(partition.log_start_offset)
    aborted = partition.aborted_transactions
    fields += _count(None if aborted is None else len(aborted), flexible)
    for transaction in aborted or ():
        fields += _INT64.pack(transaction.producer_id) + _INT64.pack(transaction.first_offset)
        if flexible:
            fields += _NO_TAGS
    if version >= 11:
        fields += _INT32.pack(partition.preferred_read_replica)
    return bytes(fields)


def _count(count: int | None, flexible: bool) -> bytes:
    """An array's length: int32 (-1 = null), or a compact unsigned varint of count + 1 (0 = null)."""
    if flexible:
        return _uvarint(0 if count is None else count + 1)
    return _INT32.pack(-1 if count is None else count)


def _string(text: str, flexible: bool) -> bytes:
    data = text.encode("utf-8")
    return (_uvarint(len(data) + 1) if flexible else _INT16.pack(len(data))) + data


def _records_length(records: bytes | None, flexible: bool) -> bytes:
    return _count(None if records is None else len(records), flexible)


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
