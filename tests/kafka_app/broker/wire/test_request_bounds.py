"""Bounded decoding, checked on request bodies built by kafka-python and then damaged where the
damage matters: each of Kafka's reader checks refuses what it must and passes real requests."""

from __future__ import annotations

import struct

import pytest
from kafka.protocol.admin.topics import CreateTopicsRequest
from kafka.protocol.consumer.offsets import ListOffsetsRequest
from kafka.protocol.metadata.metadata import MetadataRequest

from kafka_app.broker.errors import InvalidRequest
from kafka_app.broker.wire.request_bounds import MAX_ENTRIES_PER_REQUEST, check_body, read_uvarint
from tests.kafka_app.broker.wire.fuzz_corpus import build_corpus

Topic = MetadataRequest.MetadataRequestTopic


def metadata_body(version: int, names: list[str] | None) -> bytes:
    request = MetadataRequest(
        topics=None if names is None else [Topic(name=n) for n in names],
        allow_auto_topic_creation=False,
        include_topic_authorized_operations=False,
    )
    return bytes(request.encode(version=version))


def check(cls: type, body: bytes, version: int) -> int:
    return check_body(cls, memoryview(body), 0, version)


def test_every_request_of_the_corpus_passes_and_ends_where_the_body_ends() -> None:
    for seed in build_corpus("fuzz"):
        body = seed.frame[4:]
        client_id_length = struct.unpack_from(">h", body, 8)[0]
        start = (
            10
            + client_id_length
            + (1 if seed.request_class.flexible_version_q(seed.version) else 0)
        )
        end = check_body(seed.request_class, memoryview(body), start, seed.version)
        assert end == len(body), (seed.api, seed.version)


def test_a_null_array_passes_only_where_kafka_allows_null() -> None:
    assert check(MetadataRequest, metadata_body(12, None), 12) == len(metadata_body(12, None))
    request = ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[])
    body = bytearray(request.encode(version=3))
    body[4 + 1 : 4 + 1 + 4] = struct.pack(">i", -1)  # after replica_id and isolation_level
    with pytest.raises(InvalidRequest, match="non-nullable field topics was serialized as null"):
        check(ListOffsetsRequest, bytes(body), 3)


def test_an_array_count_beyond_the_frame_is_refused_before_any_entry() -> None:
    body = bytearray(metadata_body(4, ["a"]))
    body[0:4] = struct.pack(">i", 2**31 - 1)
    with pytest.raises(InvalidRequest, match="Tried to allocate a collection of size 2147483647"):
        check(MetadataRequest, bytes(body), 4)


def test_a_string_longer_than_the_frame_is_refused() -> None:
    body = bytearray(metadata_body(4, ["abc"]))
    body[4:6] = struct.pack(">h", 0x7FFF)  # the topic name's length
    with pytest.raises(InvalidRequest, match="name needs 32767 bytes"):
        check(MetadataRequest, bytes(body), 4)


def test_a_compact_string_over_32767_bytes_is_refused() -> None:
    body = bytearray(metadata_body(12, ["abc"]))
    # v12: topic count (varint 2 = one topic), topic id (16 bytes), then the compact name length.
    name_at = 1 + 16
    body[name_at : name_at + 1] = b"\x81\x80\x02"  # 32769, i.e. a length of 32768
    with pytest.raises(InvalidRequest, match="invalid length 32768"):
        check(MetadataRequest, bytes(body), 12)


def test_a_varint_longer_than_5_bytes_is_refused_at_once() -> None:
    with pytest.raises(InvalidRequest, match="too long"):
        read_uvarint(b"\xff" * 6 + b"\x01", 0)
    assert read_uvarint(b"\xff\xff\xff\xff\x0f", 0) == (2**32 - 1, 5)
    with pytest.raises(InvalidRequest, match="too long"):
        check(MetadataRequest, b"\xff" * 100_000, 12)


def test_more_entries_than_the_limit_are_refused() -> None:
    fits = metadata_body(4, ["t"] * MAX_ENTRIES_PER_REQUEST)
    assert check(MetadataRequest, fits, 4) == len(fits)
    too_many = metadata_body(4, ["t"] * (MAX_ENTRIES_PER_REQUEST + 1))
    with pytest.raises(InvalidRequest, match=f"more than {MAX_ENTRIES_PER_REQUEST} array entries"):
        check(MetadataRequest, too_many, 4)


def test_a_tagged_field_running_past_the_frame_is_refused() -> None:
    request = CreateTopicsRequest(topics=[], timeout_ms=1000, validate_only=False)
    body = bytes(request.encode(version=7))
    assert body.endswith(b"\x00")  # no tagged fields
    with pytest.raises(InvalidRequest, match="tagged field"):
        check(CreateTopicsRequest, body[:-1] + b"\x01\x00\x7f" + b"x" * 3, 7)


def test_the_largest_real_request_fits_the_entry_limit() -> None:
    """CreateTopics with 10,000 manual assignments (Kafka's most per request) is 20,001 entries."""
    Creatable = CreateTopicsRequest.CreatableTopic
    assignments = [
        Creatable.CreatableReplicaAssignment(partition_index=i, broker_ids=[0])
        for i in range(10_000)
    ]
    request = CreateTopicsRequest(
        timeout_ms=1000,
        validate_only=False,
        topics=[
            Creatable(
                name="wide",
                num_partitions=-1,
                replication_factor=-1,
                assignments=assignments,
                configs=[],
            )
        ],
    )
    body = bytes(request.encode(version=7))
    assert check(CreateTopicsRequest, body, 7) == len(body)
