"""Frames that once stopped the broker, kept byte for byte: each must get Kafka's answer (or a
closed connection) while every other connection keeps being served."""

from __future__ import annotations

import socket
import struct
import time
from pathlib import Path

import pytest
from kafka.protocol.admin import CreateTopicsResponse
from kafka.protocol.admin.configs import IncrementalAlterConfigsRequest
from kafka.protocol.consumer.offsets import ListOffsetsResponse
from kafka.protocol.producer.produce import ProduceResponse

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from tests.kafka_app.broker.broker_helpers import api_versions_answered, create_topic, raw_call

# Issue 13: a kafka-python CreateTopics v7 with one mutated byte asks for topic "mq" with
# 0x52000002 = 1,375,731,714 partitions. The broker tried to create them all on its event loop
# and answered nobody; now the partition count is checked before any work, and answered as
# Kafka's controller answers it: POLICY_VIOLATION, more than 10,000 partitions per request.
CREATE_TOPICS_HUGE_PARTITIONS = bytes.fromhex(
    "00000046001300070000000300136b61666b612d707974686f6e2d332e302e31320002036d7152000002"
    "000101020d726574656e74696f6e2e6d73073630303030300000000075300000"
)
POLICY_VIOLATION = 44
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUEST = 42


@pytest.fixture
def broker(tmp_path: Path, free_port: int):
    with EmbeddedBroker(BrokerSettings(port=free_port, data_dir=tmp_path / "data")) as running:
        yield running


def read_response(sock: socket.socket) -> bytes:
    size = struct.unpack(">i", sock.recv(4, socket.MSG_WAITALL))[0]
    return sock.recv(size, socket.MSG_WAITALL)


def test_create_topics_with_a_billion_partitions_is_refused_and_others_are_served(
    broker: EmbeddedBroker, tmp_path: Path
) -> None:
    with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as client:
        client.sendall(CREATE_TOPICS_HUGE_PARTITIONS)
        payload = read_response(client)
    # Response header v1 (flexible): correlation id, then an empty tagged-field byte.
    assert struct.unpack(">i", payload[:4])[0] == 3
    response = CreateTopicsResponse[7].decode(payload[5:])
    [topic] = response.topics
    assert (topic.name, topic.error_code) == ("mq", POLICY_VIOLATION)
    assert api_versions_answered(broker.port)
    assert not (tmp_path / "data" / "mq-0").exists()


# Issue 13's fuzzer (tests/kafka_app/broker/wire/test_broker_fuzz.py), seeds 13, 1 and 3: a null (-1
# length) where the schema allows none reached a handler as None and ended in a TypeError, an
# "internal error". Kafka's generated request classes refuse such a request while parsing it
# ("non-nullable field ... was serialized as null"), and the connection closes.
NULL_FIELDS = {
    "LeaveGroup v5, members null": "0000002e000d000500000005000466757a7a0001000100000001000466757a"
    "7a000000000000ffffffff0000000000000000",
    "SyncGroup v2, assignment bytes null": "00000028000e000200000002000466757a7a00000000000000000000"
    "0001000466757a7affffffff00000000",
}


@pytest.mark.parametrize("name", sorted(NULL_FIELDS))
def test_a_null_in_a_non_nullable_field_closes_that_connection_only(
    broker: EmbeddedBroker, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as client:
        client.sendall(bytes.fromhex(NULL_FIELDS[name]))
        assert client.recv(4) == b""  # closed, unanswered, as Kafka closes on a parse error
    assert api_versions_answered(broker.port)
    assert "internal error" not in caplog.text
    assert "was serialized as null" in caplog.text


# --- Found by the fuzzer (tests/kafka_app/broker/wire/test_broker_fuzz.py), kept byte for byte ---
# Each is a kafka-python request with a length set to -1 (null) in a field Kafka never allows to
# be null. kafka-python's decoder gave None and the handler failed ("after an internal error");
# Kafka's reader refuses it ("non-nullable field ... was serialized as null") and closes the
# connection, and so do we now.
FUZZ_NULL_FIELDS = {
    # seed 13, case 35: ListOffsets v9 whose topics array is null.
    "list_offsets_v9_null_topics": bytes.fromhex(
        "0000003500020009000003f1000b66757a7a2d636f7270757300ffffffff00000080007a7a0200000000"
        "ffffffffffffffffffffffff000000"
    ),
    # seed 1, case 215: OffsetFetch v6 whose topic name is null.
    "offset_fetch_v6_null_topic_name": bytes.fromhex(
        "0000003600090006000003ee000b66757a7a2d636f72707573001966757a7a2d67726f73657446657463"
        "682d36020566757a7a02000000000000"
    ),
    # seed 2, case 16: Fetch v11 whose topics array is null.
    "fetch_v11_null_topics": bytes.fromhex(
        "000000700001000b000003f3000b66757a7a2d636f72707573ffffffff000000ffffffff070000000000"
        "1000000000000000ffffffff00000001000466757a7a0000000100000000ffffffff000000000000000"
        "0ffffffffffffffff0010000000000001000466757a7a00000001000000000000"
    ),
}


def closed_by_broker(sock: socket.socket) -> bool:
    """True when the broker closes `sock` without a response (Kafka's answer to a bad request)."""
    try:
        return sock.recv(4096) == b""
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("name", sorted(FUZZ_NULL_FIELDS))
def test_a_null_in_a_non_nullable_field_closes_the_connection_not_the_handler(
    broker: EmbeddedBroker, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as client:
        client.sendall(FUZZ_NULL_FIELDS[name])
        assert closed_by_broker(client)
    assert api_versions_answered(broker.port)
    assert "was serialized as null" in caplog.text
    assert "internal error" not in caplog.text


def test_an_endless_varint_is_refused_at_its_sixth_byte(broker: EmbeddedBroker) -> None:
    """Metadata v12 whose topic count is a varint 1 MB long. kafka-python reads a varint for as
    long as its bytes say "more", shifting an ever larger Python integer: about 24 s of one CPU
    for 1 MB (quadratic), all of it on the broker's only thread. Kafka stops at 5 bytes."""
    body = struct.pack(">hhih", 3, 12, 7, 4) + b"test" + b"\x00" + b"\xff" * 1_000_000 + b"\x01"
    with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as client:
        client.sendall(struct.pack(">i", len(body)) + body)
        started = time.monotonic()
        assert api_versions_answered(broker.port)
        assert time.monotonic() - started < 2
        assert closed_by_broker(client)


# seed 23, case 446: Produce v8 (acks=1) to a topic named by 32,767 "x"s. The broker's error
# message quoted the name, the message passed int16's 32767 and the answer could not be encoded
# ("after an internal error"). Messages are clipped to 1000 characters now.
PRODUCE_V8_LONGEST_TOPIC_NAME = bytes.fromhex(
    "0000808100000008000003f0000b66757a7a2d636f72707573ffff0001fffffffe000000017fff"
    + "78" * 32767
    + "000000010000000000000053"
    + "00" * 11
    + "4700000000028d0475f40000000000010000018bcfe5"
    "68000000018bcfe56801" + "ff" * 14 + "0000000214000000046b300476300014000202046b3104763100"
)

# seed 21, case 8931: ListOffsets v3 naming fuzz-0 a thousand times, timestamp 1. Each lookup
# read the partition record by record from the start, through everything DeleteRecords had
# removed, and the broker answered nobody for over 2 s. Kafka answers a partition named twice
# with INVALID_REQUEST and does not look it up; lookups now also start at the log start offset.
LIST_OFFSETS_V3_ONE_PARTITION_1000_TIMES = bytes.fromhex(
    "00002f0800020003000003eb000b66757a7a2d636f72707573ffffffff0000000001000466757a7a000003e8"
    + "000000000000000000000001" * 1000
)


def test_an_error_message_quoting_a_32767_character_name_still_encodes(
    broker: EmbeddedBroker,
) -> None:
    assert len(PRODUCE_V8_LONGEST_TOPIC_NAME) == 4 + 0x8081  # its own length prefix, plus 4
    with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as client:
        client.sendall(PRODUCE_V8_LONGEST_TOPIC_NAME)
        payload = read_response(client)
    response = ProduceResponse[8].decode(payload[4:])
    [partition] = response.responses[0].partition_responses
    assert partition.error_code == UNKNOWN_TOPIC_OR_PARTITION
    assert 0 < len(partition.error_message) <= 1003
    assert api_versions_answered(broker.port)


def test_a_partition_named_a_thousand_times_in_list_offsets_is_invalid_request(
    broker: EmbeddedBroker,
) -> None:
    create_topic(broker.bootstrap_servers, "fuzz", partitions=2)
    with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as client:
        client.sendall(LIST_OFFSETS_V3_ONE_PARTITION_1000_TIMES)
        payload = read_response(client)
    response = ListOffsetsResponse[3].decode(payload[4:])
    answers = response.topics[0].partitions
    assert len(answers) == 1000
    assert {(p.error_code, p.offset) for p in answers} == {(INVALID_REQUEST, -1)}


# seed 13, first run of the field mutations: Metadata v5 naming topic "fuzz" 1,000,000 times,
# a 6 MB frame. Decoding, answering and encoding a million entries on the loop every client
# shares held everyone up for seconds; more than 25,000 array entries now close the connection
# before any is decoded.
METADATA_V5_A_MILLION_TOPICS = bytes.fromhex(
    "005b8d9a00030005000003ed000b66757a7a2d636f72707573000f4240" + "000466757a7a" * 1_000_000 + "00"
)


def test_a_request_with_a_million_entries_is_closed_before_it_is_decoded(
    broker: EmbeddedBroker,
) -> None:
    with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as client:
        client.sendall(METADATA_V5_A_MILLION_TOPICS)
        started = time.monotonic()
        assert api_versions_answered(broker.port)
        assert time.monotonic() - started < 1
        assert closed_by_broker(client)


def test_a_resource_named_a_thousand_times_in_incremental_alter_configs_is_invalid_request(
    broker: EmbeddedBroker,
) -> None:
    """Seed 31, case 8321 (before the fuzzer capped nested copies): IncrementalAlterConfigs v0
    naming topic fuzz 1000 times, so the broker rewrote topics.json 1000 times on the loop
    (1.1 s). Kafka's ConfigAdminManager refuses every mention of a repeated resource."""
    create_topic(broker.bootstrap_servers, "fuzz", partitions=2)
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    resource = Resource(
        resource_type=2,
        resource_name="fuzz",
        configs=[Resource.AlterableConfig(name="retention.ms", config_operation=0, value="600000")],
    )
    request = IncrementalAlterConfigsRequest[0](resources=[resource] * 1000, validate_only=False)
    response = raw_call(broker.port, request, 0)
    assert len(response.responses) == 1000
    assert {(r.error_code, r.error_message) for r in response.responses} == {
        (INVALID_REQUEST, "Each resource must appear at most once.")
    }
    assert broker.call(broker.storage.topic_config, "fuzz").to_strings() == {}


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        (
            [("retention.ms", 0, "1"), ("retention.ms", 0, "2")],
            "Error due to duplicate config keys",
        ),
        ([("retention.ms", 0, None)], "Null value not supported for : retention.ms"),
    ],
)
def test_incremental_alter_configs_checks_each_resource_as_kafka_does(
    broker: EmbeddedBroker, configs, message
) -> None:
    create_topic(broker.bootstrap_servers, "shape")
    Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
    request = IncrementalAlterConfigsRequest[1](
        validate_only=False,
        resources=[
            Resource(
                resource_type=2,
                resource_name="shape",
                configs=[
                    Resource.AlterableConfig(name=n, config_operation=op, value=v)
                    for n, op, v in configs
                ],
            )
        ],
    )
    [answer] = raw_call(broker.port, request, 1).responses
    assert (answer.error_code, answer.error_message) == (INVALID_REQUEST, message)
