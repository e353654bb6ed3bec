"""The fuzzer's corpus and mutations: real requests, then damaged copies of them.

The corpus has two halves. What a real client sends: every request kafka-python makes while it
creates a topic, produces, consumes in a group and commits, recorded on the wire on its way to
the broker (`recorded_corpus`). And what it could send: one framed request for every API key and
version the broker advertises, built with kafka-python's own request classes (generated from
Kafka's JSON specs) and filled with plausible values, so that undamaged requests reach deep into
the handlers: an existing topic, partition 0, a real record batch, a consumer-protocol
subscription (`build_corpus`).
Mutations are drawn from one `random.Random(seed)`, so a seed replays the same cases.

Usage:
    corpus = recorded_corpus(bootstrap, recorder_port) + build_corpus("fuzz")
    rng = random.Random(13)
    frame = mutate(rng, rng.choice(corpus).frame, corpus)
"""

from __future__ import annotations

import random
import struct
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.schemas.fields.array import ArrayField
from kafka.protocol.schemas.fields.simple import SimpleField
from kafka.protocol.schemas.fields.struct import StructField
from kafka.protocol.schemas.fields.struct_array import StructArrayField
from kafka.record.default_records import DefaultRecordBatchBuilder

from kafka_app.broker.wire.versions import API_VERSIONS, ApiKey
from scenarios.engine.faults.tcp_proxy import TcpProxy

__all__ = ["Seed", "build_corpus", "client_session", "mutate", "record_batch", "recorded_corpus"]

GROUP = "fuzz-group"
# Values worth trying where a length, count or number sits: the edges of each integer width.
INTERESTING_INT32 = (
    -1,
    -2,
    0,
    1,
    0x7F,
    0x80,
    0xFF,
    0x7FFF,
    0x8000,
    0xFFFF,
    0x7FFFFFFF,
    -0x80000000,
    1_000_000,
    100_000_000,
)
INTERESTING_INT16 = (-1, -2, 0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, -0x8000)
INTERESTING_BYTES = (0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF)
MAX_FIELD_MUTATION_FRAME = 8 << 20


@dataclass(frozen=True)
class Seed:
    """One undamaged request of the corpus."""

    api: str
    version: int
    frame: bytes
    request_class: type[ApiMessage]


def record_batch(count: int = 2) -> bytes:
    """A real v2 record batch of `count` small records, as a producer sends it."""
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=-1,
        producer_epoch=-1,
        base_sequence=-1,
        batch_size=1 << 20,
    )
    for n in range(count):
        builder.append(
            n, timestamp=1_700_000_000_000 + n, key=b"k%d" % n, value=b"v%d" % n, headers=[]
        )
    return bytes(builder.build())


def consumer_subscription(topic: str) -> bytes:
    """The consumer protocol's Subscription v0: version, [topics], user data (null)."""
    name = topic.encode()
    return struct.pack(">hih", 0, 1, len(name)) + name + struct.pack(">i", -1)


def consumer_assignment(topic: str) -> bytes:
    """The consumer protocol's Assignment v0: version, [(topic, [partitions])], user data."""
    name = topic.encode()
    return struct.pack(">hih", 0, 1, len(name)) + name + struct.pack(">iii", 1, 0, -1)


def build_corpus(topic: str) -> list[Seed]:
    """A framed request for every API key and version the broker advertises."""
    corpus = []
    for key, spec in sorted(API_VERSIONS.items()):
        for version in range(spec.min_version, spec.max_version + 1):
            # A group of its own per request: a JoinGroup must not wait for another's rebalance.
            group = f"{GROUP}-{key.name}-{version}"
            # DeleteTopics names a topic nobody uses: deleting the fuzzed one would leave most
            # later cases asking about a topic that is gone.
            named = f"{topic}-doomed" if key.name == "DeleteTopics" else topic
            request = _sample_message(spec.request, version, named, group)
            request.with_header(correlation_id=1000 + version, client_id="fuzz-corpus")
            frame = bytes(request.encode(header=True, framed=True))
            corpus.append(Seed(key.name, version, frame, spec.request))
    return corpus


def recorded_corpus(listener: tuple[str, int], recorder_port: int) -> list[Seed]:
    """Every request a normal client session sends, recorded on the wire. `listener` is a broker
    listener that advertises 127.0.0.1:`recorder_port` (BrokerSettings.second_listener), so the
    clients' every connection, bootstrap and later, passes through the recorder."""
    sent = bytearray()
    lock = threading.Lock()

    def record(data: bytes) -> None:
        with lock:
            sent.extend(data)

    with TcpProxy(recorder_port, listener, record=record):
        client_session(f"127.0.0.1:{recorder_port}", "recorded")
    # Connections' bytes interleave in `sent` only between whole reads; keep what parses.
    return [seed for frame in _frames(bytes(sent)) if (seed := _recorded_seed(frame))]


def client_session(bootstrap: str, topic: str) -> None:
    """What a normal client does: create a topic, produce, consume in a group, commit."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(topic, 2, 1, topic_configs={"retention.ms": "600000"})])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for n in range(20):
        producer.send(topic, key=b"%d" % n, value=b"value-%d" % n)
    producer.flush(10)
    producer.close()
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"{topic}-group",
        auto_offset_reset="earliest",
        consumer_timeout_ms=5000,
    )
    read = list(consumer)
    consumer.commit()
    consumer.close()
    assert len(read) == 20, f"read {len(read)} of 20 records"


def _frames(data: bytes) -> Iterator[bytes]:
    """Length-prefixed frames in a byte stream (whole ones only)."""
    at = 0
    while at + 4 <= len(data):
        size = struct.unpack(">i", data[at : at + 4])[0]
        if size < 0 or at + 4 + size > len(data):
            return
        yield data[at : at + 4 + size]
        at += 4 + size


def _recorded_seed(frame: bytes) -> Seed | None:
    key, version = struct.unpack_from(">hh", frame, 4)
    try:
        spec = API_VERSIONS[ApiKey(key)]
    except (ValueError, KeyError):
        return None  # not a request the broker knows: nothing the field mutations can decode
    return Seed(f"{ApiKey(key).name} (recorded)", version, frame, spec.request)


def _sample_message(cls: type[ApiMessage], version: int, topic: str, group: str) -> ApiMessage:
    values = _sample_fields(cls._struct, version, topic, parent=cls.__name__)
    for name in ("group_id", "key"):
        if name in values:
            values[name] = group
    for entry in values.get("groups") or ():  # OffsetFetch v8+ names its groups in a list
        entry.group_id = group
    for key in ("coordinator_keys",):  # FindCoordinator v4+
        if key in values:
            values[key] = [group]
    message = cls(**values)
    message.API_VERSION = version
    return message


def _sample_fields(
    struct_field: StructField, version: int, topic: str, parent: str
) -> dict[str, Any]:
    return {
        field.name: _sample(field, version, topic, parent)
        for field in struct_field.untagged_fields(version)
    }


def _sample(field: Any, version: int, topic: str, parent: str) -> Any:
    if isinstance(field, StructArrayField):
        inner = field.array_of
        return [inner.data_class(**_sample_fields(inner, version, topic, field.type_str))]
    if isinstance(field, ArrayField):
        return [_sample(field.array_of, version, topic, parent)]
    if isinstance(field, StructField):
        return field.data_class(**_sample_fields(field, version, topic, field.type_str))
    assert isinstance(field, SimpleField), field
    return _simple_value(field, topic, parent)


def _simple_value(field: SimpleField, topic: str, parent: str) -> Any:
    name, kind = field.name, field.type_str
    if kind in ("records", "bytes"):
        if kind == "records":
            return record_batch()
        return consumer_assignment(topic) if name == "assignment" else consumer_subscription(topic)
    if kind == "string":
        return _string_value(name, topic, parent, field.default)
    if kind == "bool":
        return False
    if kind == "uuid":
        return None
    if kind == "float64":
        return 0.0
    return _int_value(name, field.default)


def _string_value(name: str, topic: str, parent: str, default: Any) -> str | None:
    if "Config" in parent or "Alterable" in parent:
        return {"name": "retention.ms", "value": "600000"}.get(name, default or topic)
    by_name = {
        "group_id": GROUP,
        "key": GROUP,
        "member_id": "",
        "protocol_type": "consumer",
        "protocol_name": "range",
        "client_software_name": "fuzz",
        "client_software_version": "1",
        "rack_id": "",
        "transactional_id": None,
        "group_instance_id": None,
        "reason": None,
        "leader": "",
        "error_message": None,
    }
    if name in by_name:
        return by_name[name]
    if name == "name" and "Protocol" in parent:
        return "range"
    return topic


def _int_value(name: str, default: int) -> int:
    by_name = {
        "acks": 1,
        "timeout_ms": 3000,
        "session_timeout_ms": 10_000,
        "rebalance_timeout_ms": 10_000,
        "max_wait_ms": 0,
        "min_bytes": 0,
        "max_bytes": 1 << 20,
        "partition_max_bytes": 1 << 20,
        "num_partitions": 1,
        "replication_factor": 1,
        "resource_type": 2,
        "replica_id": -1,
        "producer_id": -1,
        "producer_epoch": -1,
        "generation_id": -1,
        "timestamp": -1,
        "session_epoch": -1,
        "current_leader_epoch": -1,
        "last_fetched_epoch": -1,
        "log_start_offset": -1,
        "committed_leader_epoch": -1,
        "generation_id_or_member_epoch": -1,
        "offset": -1,
        "transaction_timeout_ms": 60_000,
        "retention_time_ms": -1,
    }
    return by_name.get(name, default if isinstance(default, int) else 0)


# --- mutations -----------------------------------------------------------------------------


def mutate(rng: random.Random, seed: Seed, corpus: list[Seed]) -> bytes:
    """One damaged copy of `seed`: either a well-formed request with edge values in its fields
    (which reaches the handlers), or its bytes damaged by one to three mutations and then
    (usually) given a length prefix that matches, so the body is decoded rather than waited for."""
    if rng.random() < 0.35:
        frame = _mutate_fields(rng, seed)
        if frame is not None:
            return frame
    body = bytearray(seed.frame[4:])
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        body = rng.choice(_BODY_MUTATIONS)(rng, body, corpus)
    roll = rng.random()
    if roll < 0.04:  # a length prefix that lies: huge, negative, zero or a little off
        size = rng.choice((0x7FFFFFFF, -1, -0x80000000, 0, 3, len(body) + rng.randint(1, 9)))
        return struct.pack(">i", size) + bytes(body)
    return struct.pack(">i", len(body)) + bytes(body)


def _body_position(rng: random.Random, body: bytearray) -> int:
    # Most of a request's lengths and counts sit near its start; the header is 8+ bytes.
    if rng.random() < 0.7:
        return rng.randrange(min(len(body), 8), min(len(body), 96)) if len(body) > 8 else 0
    return rng.randrange(len(body))


def _flip_bits(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    for _ in range(rng.randint(1, 4)):
        position = _body_position(rng, body)
        body[position] ^= 1 << rng.randrange(8)
    return body


def _set_byte(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    body[_body_position(rng, body)] = rng.choice(INTERESTING_BYTES + (rng.randrange(256),))
    return body


def _set_int(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    """A length, count or number replaced by an edge value (int16 or int32, big-endian)."""
    position = _body_position(rng, body)
    if rng.random() < 0.5:
        packed = struct.pack(">h", rng.choice(INTERESTING_INT16))
    else:
        packed = struct.pack(">i", rng.choice(INTERESTING_INT32))
    body[position : position + len(packed)] = packed
    return body


def _set_varint(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    """A compact length or count (unsigned varint) replaced by a huge or over-long one."""
    position = _body_position(rng, body)
    huge = rng.choice(
        (
            b"\xff\xff\xff\xff\x07",
            b"\xff\xff\xff\xff\x0f",
            b"\x80" * 9 + b"\x01",
            b"\xff" * rng.randint(6, 64),
            b"\x00",
            b"\x01",
            b"\x80\x80\x01",
        )
    )
    body[position : position + 1] = huge
    return body


def _truncate(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    return body[: rng.randrange(8, len(body))] if len(body) > 9 else body


def _insert(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    position = _body_position(rng, body)
    body[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
    return body


def _delete(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    position = _body_position(rng, body)
    del body[position : position + rng.randint(1, 8)]
    return body if len(body) >= 8 else bytearray(b"\x00" * 8)


def _splice(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    """This request's head glued to another request's tail (header fields stay this one's)."""
    other = rng.choice(corpus).frame[4:]
    cut = rng.randrange(8, len(body)) if len(body) > 8 else len(body)
    return body[:cut] + other[rng.randrange(min(8, len(other)), len(other)) :]


def _repeat(rng: random.Random, body: bytearray, corpus: list[Seed]) -> bytearray:
    """A slice of the body repeated, as a count that suddenly holds true many times over."""
    start = _body_position(rng, body)
    piece = body[start : start + rng.randint(1, 32)]
    return body + piece * rng.randint(2, 200)


_BODY_MUTATIONS = (
    _flip_bits,
    _set_byte,
    _set_int,
    _set_int,
    _set_varint,
    _truncate,
    _insert,
    _delete,
    _splice,
    _repeat,
)


# --- field mutations: well-formed requests with edge values ----------------------------------

_EDGE_INTS = {
    "int8": (-128, -1, 0, 1, 127),
    "int16": (-32768, -2, -1, 0, 1, 32767),
    "uint16": (0, 1, 65535),
    "int32": (-(2**31), -2, -1, 0, 1, 2**31 - 1, 10_000, 1_000_000),
    "int64": (-(2**63), -2, -1, 0, 1, 2**63 - 1, 2**31),
}


def _mutate_fields(rng: random.Random, seed: Seed) -> bytes | None:
    """Decode the seed, give one to three of its fields an edge value, encode it again; None when
    the codec cannot encode the result (a value out of its field's range)."""
    request = seed.request_class.decode(seed.frame[4:], version=seed.version, header=True)
    slots = list(_slots(request, seed.request_class._struct, seed.version))
    if not slots:  # ApiVersions v0-v2 has no fields at all
        return None
    for _ in range(rng.randint(1, 3)):
        container, field = rng.choice(slots)
        setattr(container, field.name, _edge_value(rng, field, getattr(container, field.name)))
    try:
        frame = bytes(request.encode(version=seed.version, header=True, framed=True))
    except (ValueError, TypeError, struct.error, OverflowError, AttributeError):
        return None
    # Nested copies multiply (1000 topics of 60,000 partitions made 240 MB): past the broker's
    # frame limit nothing new is learnt, and building it costs the fuzzer seconds.
    return frame if len(frame) <= MAX_FIELD_MUTATION_FRAME else None


def _slots(container: Any, schema: StructField, version: int) -> Any:
    """Every (object, field) pair of a decoded request, nested structs and arrays included."""
    for field in schema.untagged_fields(version):
        yield container, field
        value = getattr(container, field.name)
        if isinstance(field, StructArrayField) and value:
            for item in value:
                yield from _slots(item, field.array_of, version)
        elif isinstance(field, StructField) and value is not None:
            yield from _slots(value, field, version)


def _edge_value(rng: random.Random, field: Any, current: Any) -> Any:
    if isinstance(field, ArrayField):
        choice = rng.randrange(4)
        if choice == 0 or not current:
            return None if rng.random() < 0.5 else []
        if choice == 1:  # the same entries many times over, up to past the broker's entry limit
            return current * min(rng.choice((2, 50, 1000)), max(1, 30_000 // len(current)))
        return current[:1]
    if isinstance(field, StructField):
        return current
    kind = field.type_str
    if kind in _EDGE_INTS:
        return rng.choice(_EDGE_INTS[kind])
    if kind == "string":
        return rng.choice(
            ("", "x" * rng.choice((1, 250, 32767)), "é✓", "../..", ".", "a/b", "fuzz", None)
        )
    if kind in ("bytes", "records"):
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 120)))
        damaged = bytearray(record_batch(rng.randint(1, 5)))
        damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        return rng.choice((b"", None, junk, bytes(damaged), record_batch(rng.randint(0, 3))))
    if kind == "bool":
        return rng.random() < 0.5
    return current
