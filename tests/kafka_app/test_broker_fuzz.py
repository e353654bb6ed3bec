"""A seeded fuzzer: no request a client can send stops the broker or ends in an internal error.

The corpus is real clients' bytes: the requests kafka-python sends while it creates a topic,
produces, consumes in a group and commits (recorded between the client and the broker), plus
kafka-python's own encoding of every API key and version the broker advertises. Each case is a
corpus frame mutated with `random.Random(seed)`: bits flipped, bytes replaced, lengths made huge
or negative, frames truncated, extended or spliced. After every case a second connection must
get its ApiVersions answer within 2 s, and the broker must never log "after an internal
error": a malformed field gets Kafka's error code or a closed connection. At the end a normal
client still produces and consumes.

Fast by default (FUZZ_CASES, 2,500); `--slow` runs FUZZ_SLOW_CASES; FUZZ_SEED picks the seed.
A failing case prints its seed, index and bytes: add them to test_broker_regressions.py.
"""

from __future__ import annotations

import inspect
import logging
import os
import pkgutil
import random
import socket
import struct
import threading
from collections.abc import Iterator

import pytest
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient, NewTopic

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from scenarios.apps import free_port
from scenarios.tcp_proxy import TcpProxy
from tests.kafka_app.test_broker_regressions import api_versions_answered

FUZZ_CASES = int(os.environ.get("FUZZ_CASES", "2500"))
FUZZ_SLOW_CASES = int(os.environ.get("FUZZ_SLOW_CASES", "20000"))
SEED = int(os.environ.get("FUZZ_SEED", "13"))


class InternalErrors(logging.Handler):
    """Collects the broker's "after an internal error" records."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "internal error" in record.getMessage():
            self.seen.append(f"{record.getMessage()}: {record.exc_info and record.exc_info[1]!r}")


def _frames(data: bytes) -> Iterator[bytes]:
    """Length-prefixed frames in a byte stream (whole ones only)."""
    at = 0
    while at + 4 <= len(data):
        size = struct.unpack(">i", data[at:at + 4])[0]
        if size < 0 or at + 4 + size > len(data):
            return
        yield data[at:at + 4 + size]
        at += 4 + size


def _record_client_traffic(recorder_port: int, second_port: int) -> list[bytes]:
    """Every request frame kafka-python sends in a normal session, recorded on the way: the
    clients talk to the broker's second listener, which advertises the recorder (the scenarios'
    proxy), so all their connections pass through it."""
    sent = bytearray()
    lock = threading.Lock()

    def record(data: bytes) -> None:
        with lock:
            sent.extend(data)

    with TcpProxy(recorder_port, ("127.0.0.1", second_port), record=record):
        _session(f"127.0.0.1:{recorder_port}", "fuzzed")
    # Connections' bytes interleave in `sent` only between whole reads; keep what parses.
    return list(_frames(bytes(sent)))


def _session(bootstrap: str, topic: str) -> None:
    """What a normal client does: create a topic, produce, consume in a group, commit."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    admin.create_topics([NewTopic(topic, 2, 1, topic_configs={"retention.ms": "600000"})])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(20):
        producer.send(topic, key=b"%d" % i, value=b"value-%d" % i)
    producer.flush(10)
    producer.close()
    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=f"{topic}-group",
                             auto_offset_reset="earliest", consumer_timeout_ms=5000)
    read = list(consumer)
    consumer.commit()
    consumer.close()
    assert len(read) == 20, f"read {len(read)} of 20 records"


def _advertised_requests(broker_port: int) -> list[bytes]:
    """kafka-python's encoding of each API key and version the broker advertises."""
    import kafka.protocol as protocol
    from kafka.protocol.api_message import ApiMessage

    classes: dict[int, type] = {}
    for module in pkgutil.walk_packages(protocol.__path__, "kafka.protocol."):
        if ".old" in module.name:
            continue
        try:
            loaded = __import__(module.name, fromlist=["_"])
        except Exception:  # noqa: BLE001 - a module kafka-python cannot import is not ours to fuzz
            continue
        for obj in vars(loaded).values():
            if (inspect.isclass(obj) and issubclass(obj, ApiMessage) and obj is not ApiMessage
                    and getattr(obj, "_json", None) is not None and obj.is_request()):
                classes[obj.API_KEY] = obj
    frames = []
    for key, low, high in _advertised(broker_port):
        cls = classes.get(key)
        for version in range(low, high + 1) if cls else ():
            request = cls[version]()
            request.with_header(correlation_id=version, client_id="fuzz")
            frames.append(bytes(request.encode(header=True, framed=True)))
    return frames


def _advertised(port: int) -> list[tuple[int, int, int]]:
    """(api key, min, max) from the broker's ApiVersions v0 answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        body = struct.pack(">hhih", 18, 0, 1, 4) + b"fuzz"
        sock.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", sock.recv(4, socket.MSG_WAITALL))[0]
        answer = sock.recv(size, socket.MSG_WAITALL)
    count = struct.unpack(">i", answer[6:10])[0]
    return [struct.unpack(">hhh", answer[10 + 6 * i:16 + 6 * i]) for i in range(count)]


def mutate(rng: random.Random, frame: bytes, corpus: list[bytes]) -> bytes:
    """One mutation of a frame; the length prefix is fixed up most of the time so the body is
    what the broker parses, and left wrong sometimes, as a broken client would."""
    body = bytearray(frame[4:])
    kind = rng.randrange(7)
    if kind == 0 and body:  # flip bits
        for _ in range(rng.randint(1, 4)):
            body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
    elif kind == 1 and body:  # replace bytes
        for _ in range(rng.randint(1, 8)):
            body[rng.randrange(len(body))] = rng.randrange(256)
    elif kind == 2 and len(body) > 8:  # a length or count set to something absurd
        at = rng.randrange(4, len(body) - 4)
        body[at:at + 4] = struct.pack(">i", rng.choice([0x7FFFFFFF, -1, -2, 0x10000000, 65535]))
    elif kind == 3:  # truncated
        del body[rng.randrange(len(body) + 1):]
    elif kind == 4:  # extended with noise
        body += bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
    elif kind == 5:  # spliced with another frame's tail
        other = rng.choice(corpus)[4:]
        body = body[:rng.randrange(len(body) + 1)] + other[rng.randrange(len(other) + 1):]
    else:  # a 16-bit field (api version, string length) set to an edge
        if len(body) > 2:
            at = rng.randrange(len(body) - 2)
            body[at:at + 2] = struct.pack(">h", rng.choice([-1, 0x7FFF, -32768, 1000]))
    size = len(body) if rng.random() < 0.9 else rng.choice([len(body) + 7, 3, 0])
    return struct.pack(">i", size) + bytes(body)


@pytest.fixture(scope="module")
def fuzzed_broker(tmp_path_factory: pytest.TempPathFactory
                  ) -> Iterator[tuple[int, InternalErrors, list[bytes]]]:
    """The broker, its internal-error log, and the corpus recorded from real clients."""
    port, second, recorder = free_port(), free_port(), free_port()
    folder = tmp_path_factory.mktemp("fuzz")
    errors = InternalErrors()
    logging.getLogger("kafka_app.broker").addHandler(errors)
    settings = BrokerSettings(port=port, data_dir=folder / "data", connections_max_idle_ms=5000,
                              second_listener=f"{second}=127.0.0.1:{recorder}",
                              group_initial_rebalance_delay_ms=0)
    try:
        with EmbeddedBroker(settings):
            corpus = _record_client_traffic(recorder, second) + _advertised_requests(port)
            yield port, errors, corpus
    finally:
        logging.getLogger("kafka_app.broker").removeHandler(errors)


def _send(port: int, data: bytes) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=2)
    try:
        sock.sendall(data)
    except OSError:
        pass  # the broker closed on a bad frame: allowed
    return sock


def _fuzz(port: int, errors: InternalErrors, corpus: list[bytes], cases: int) -> None:
    assert len(corpus) > 100, f"the corpus has only {len(corpus)} frames"
    rng = random.Random(SEED)
    for index in range(cases):
        case = mutate(rng, rng.choice(corpus), corpus)
        sock = _send(port, case)
        try:
            answered = api_versions_answered(port)
        except OSError as err:
            answered = False
            why = repr(err)
        else:
            why = "no answer"
        finally:
            sock.close()
        assert answered, f"seed {SEED} case {index}: a second client got {why}; frame {case.hex()}"
        assert not errors.seen, f"seed {SEED} case {index}: {errors.seen[-1]}; frame {case.hex()}"
    print(f"\nfuzzed {cases} cases from {len(corpus)} corpus frames, seed {SEED}")
    _session(f"127.0.0.1:{port}", f"after-{cases}-cases")  # a normal client still works


def test_the_corpus_holds_what_real_clients_send(
        fuzzed_broker: tuple[int, InternalErrors, list[bytes]]) -> None:
    _, _, corpus = fuzzed_broker
    keys = {struct.unpack(">h", frame[4:6])[0] for frame in corpus}
    # Metadata, Produce, Fetch, ListOffsets, FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
    # OffsetCommit, OffsetFetch, CreateTopics, ApiVersions at least.
    assert {0, 1, 2, 3, 8, 9, 10, 11, 12, 14, 18, 19} <= keys, sorted(keys)


def test_mutated_requests_never_stop_the_broker(
        fuzzed_broker: tuple[int, InternalErrors, list[bytes]]) -> None:
    _fuzz(*fuzzed_broker[:2], fuzzed_broker[2], FUZZ_CASES)


@pytest.mark.e2e
def test_many_more_mutated_requests(fuzzed_broker: tuple[int, InternalErrors, list[bytes]]) -> None:
    _fuzz(*fuzzed_broker[:2], fuzzed_broker[2], FUZZ_SLOW_CASES)
