"""Bounded decoding: a request body is checked against its schema before it is decoded.

kafka-python's decoder trusts the lengths it reads. A string or bytes field longer than the
frame is silently cut short, a null (-1) in a field that may not be null decodes as None (and
later breaks a handler), and an unsigned varint is read for as long as its bytes say "more",
growing a Python integer without limit. Kafka's own generated readers refuse all of these
before they allocate or loop (`Tried to allocate a collection of size N, but there are only M
bytes remaining`, `non-nullable field X was serialized as null`, `Varint is too long`), and
the broker then closes the connection. This module walks the same schema kafka-python decodes
with (Kafka's JSON message specs) and applies Kafka's checks, so by the time the decoder runs
every length and count fits in what is left of the frame. One limit is ours: at most
MAX_ENTRIES_PER_REQUEST array entries per request, because one loop serves every client.

Usage: `check_body(FetchRequest, memoryview(frame), body_start, version=12)` raises
`InvalidRequest` naming the field, or returns the position after the body.
"""

from __future__ import annotations

import struct
from typing import Any

from kafka.protocol.api_message import ApiMessage
from kafka.protocol.schemas.fields.array import ArrayField
from kafka.protocol.schemas.fields.simple import SimpleField
from kafka.protocol.schemas.fields.struct import StructField

from kafka_app.broker.errors import InvalidRequest

__all__ = ["check_body", "read_uvarint", "MAX_VARINT_BYTES", "MAX_ENTRIES_PER_REQUEST"]

# Kafka's ByteUtils.readUnsignedVarint: a 32-bit value takes at most 5 bytes.
MAX_VARINT_BYTES = 5
# Kafka's generated readers: a compact string longer than a classic int16 string is refused.
MAX_STRING_BYTES = 0x7FFF
# Ours, not Kafka's: array entries in one request, all arrays together. Kafka decodes on many
# threads; we decode, answer and encode on the one loop every client shares, at about 3 µs per
# entry each way, so a 6 MB Metadata naming a million topics held everyone up for seconds, and
# 50,000 entries still up to 1.3 s (a Produce refusing each partition with a log line). Real
# requests stay below it: CreateTopics' 10,000 manual assignments are 20,001 entries, a Fetch
# of all 4,000 partitions (--max-partitions) about 4,000.
MAX_ENTRIES_PER_REQUEST = 25_000
_FIXED_SIZES = {
    "int8": 1,
    "bool": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "int64": 8,
    "float64": 8,
    "uuid": 16,
    "bitfield": 4,
}
_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")


def check_body(cls: type[ApiMessage], data: memoryview, position: int, version: int) -> int:
    """Check the body of a `cls` request of `version` starting at `position`; return where it ends."""
    flexible = cls.flexible_version_q(version)
    return _Walk(data, version, flexible).struct(cls._struct, position, nested=False)


def read_uvarint(data: bytes | memoryview, position: int) -> tuple[int, int]:
    """An unsigned varint of at most 5 bytes (Kafka's limit) and the position after it."""
    value = 0
    for index in range(MAX_VARINT_BYTES):
        if position >= len(data):
            raise InvalidRequest("the frame ends inside an unsigned varint")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << (7 * index)
        if byte < 0x80:
            return value, position
    raise InvalidRequest("varint is too long: more than 5 bytes")


class _Walk:
    """One pass over one body: positions only, nothing is built."""

    def __init__(self, data: memoryview, version: int, flexible: bool) -> None:
        self.data = data
        self.version = version
        self.flexible = flexible
        self.entries = 0

    def need(self, position: int, size: int, what: str) -> int:
        if size > len(self.data) - position:
            raise InvalidRequest(
                f"{what} needs {size} bytes, but there are only "
                f"{max(len(self.data) - position, 0)} bytes remaining"
            )
        return position + size

    def struct(self, schema: StructField, position: int, nested: bool = True) -> int:
        if nested and schema.nullable_for_version_q(self.version):
            position = self.need(position, 1, f"the null marker of {schema.name}")
            if self.data[position - 1] == 0xFF:
                return position
        for field in schema.untagged_fields(self.version):
            position = self.field(field, position)
        if self.flexible:
            position = self.tagged_fields(position)
        return position

    def field(self, field: Any, position: int) -> int:
        if isinstance(field, ArrayField):
            return self.array(field, position)
        if isinstance(field, StructField):
            return self.struct(field, position)
        assert isinstance(field, SimpleField), field
        return self.simple(field, field.name, position, field.nullable_for_version_q(self.version))

    def simple(self, field: SimpleField, name: str, position: int, nullable: bool) -> int:
        kind = field.type_str
        if kind in _FIXED_SIZES:
            return self.need(position, _FIXED_SIZES[kind], name)
        if kind == "string":
            length, position = self.length(position, _INT16, name)
            if length > MAX_STRING_BYTES:
                raise InvalidRequest(f"string field {name} had invalid length {length}")
        else:  # bytes and records
            length, position = self.length(position, _INT32, name)
        if length < 0:
            if length != -1 or not nullable:
                raise InvalidRequest(f"non-nullable field {name} was serialized as null")
            return position
        return self.need(position, length, name)

    def array(self, field: ArrayField, position: int) -> int:
        count, position = self.length(position, _INT32, field.name)
        if count < 0:
            if count != -1 or not field.nullable_for_version_q(self.version):
                raise InvalidRequest(f"non-nullable field {field.name} was serialized as null")
            return position
        remaining = len(self.data) - position
        if count > remaining:  # every element takes at least one byte
            raise InvalidRequest(
                f"Tried to allocate a collection of size {count}, "
                f"but there are only {remaining} bytes remaining."
            )
        self.entries += count
        if self.entries > MAX_ENTRIES_PER_REQUEST:
            raise InvalidRequest(
                f"more than {MAX_ENTRIES_PER_REQUEST} array entries in one "
                f"request (at {field.name})"
            )
        element = field.array_of
        for _ in range(count):
            if isinstance(element, StructField):
                position = self.struct(element, position)
            else:
                position = self.simple(element, field.name, position, False)
        return position

    def length(self, position: int, classic: struct.Struct, name: str) -> tuple[int, int]:
        """A length or count: compact (unsigned varint, minus one) when flexible, else fixed."""
        if self.flexible:
            value, position = read_uvarint(self.data, position)
            return value - 1, position
        end = self.need(position, classic.size, f"the length of {name}")
        return classic.unpack_from(self.data, position)[0], end

    def tagged_fields(self, position: int) -> int:
        count, position = read_uvarint(self.data, position)
        if count > len(self.data) - position:
            raise InvalidRequest(
                f"{count} tagged fields cannot fit in {len(self.data) - position} bytes"
            )
        for _ in range(count):
            _, position = read_uvarint(self.data, position)
            size, position = read_uvarint(self.data, position)
            position = self.need(position, size, "a tagged field")
        return position
