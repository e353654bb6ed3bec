"""A seeded fuzzer: damaged copies of real requests must never stop the broker.

One broker serves the whole module. Each case is a mutated copy of a real kafka-python request
(every API key and version the broker advertises, see fuzz_corpus.py), sent on its own
connection; after each case a fresh connection's ApiVersions must be answered within 2 s, and
no log line may say the broker hit an internal error (a malformed field must get Kafka's error
code or a closed connection). At the end a normal producer and consumer still work.

    uv run pytest tests/kafka_app/test_broker_fuzz_fields.py                 # 3,000 cases, seed 13
    BROKER_FUZZ_SEED=7 BROKER_FUZZ_CASES=20000 uv run pytest tests/kafka_app/test_broker_fuzz_fields.py
    uv run pytest --slow tests/kafka_app/test_broker_fuzz_fields.py          # also 25,000 more cases

A failure prints the seed, the case number and the frame in hex: paste it into
test_broker_regressions.py as a named test.
"""

from __future__ import annotations

import logging
import os
import random
import select
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kafka import KafkaConsumer, KafkaProducer, TopicPartition

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from tests.kafka_app.broker_helpers import create_topic, recv_frame
from tests.kafka_app.fuzz_corpus import Seed, build_corpus, mutate

SEED = int(os.environ.get("BROKER_FUZZ_SEED", "13"))
FAST_CASES = int(os.environ.get("BROKER_FUZZ_CASES", "3000"))
SLOW_CASES = int(os.environ.get("BROKER_FUZZ_SLOW_CASES", "25000"))
TOPIC = "fuzz"
PROBE_TIMEOUT_SEC = 2.0
# How long a case's own connection may take to answer or close before we move on: a Fetch or a
# JoinGroup may legitimately wait far longer, and that must not hold up anyone else.
CASE_WAIT_SEC = 0.05


class ErrorLog(logging.Handler):
    """Keeps every ERROR (or worse) line the broker writes, e.g. "after an internal error"."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz") / "data"
    # No initial rebalance delay: each JoinGroup of the corpus would wait 3 s for company.
    settings = BrokerSettings(port=0, data_dir=data_dir, group_initial_rebalance_delay_ms=0)
    with EmbeddedBroker(settings) as running:
        create_topic(running.bootstrap_servers, TOPIC, partitions=2)
        yield running


@pytest.fixture
def error_log() -> Iterator[ErrorLog]:
    handler = ErrorLog()
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


@pytest.fixture(scope="module")
def corpus() -> list[Seed]:
    return build_corpus(TOPIC)


def api_versions_answered(port: int, correlation_id: int) -> bool:
    """A fresh connection's ApiVersions v0 gets its answer within PROBE_TIMEOUT_SEC."""
    body = struct.pack(">hhih", 18, 0, correlation_id, 5) + b"probe"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT_SEC) as probe:
            probe.sendall(struct.pack(">i", len(body)) + body)
            answer = recv_frame(probe)
    except OSError:
        return False
    return struct.unpack_from(">i", answer)[0] == correlation_id


def send_case(port: int, frame: bytes) -> None:
    """Send one case on its own connection and give it CASE_WAIT_SEC to answer or close."""
    with socket.create_connection(("127.0.0.1", port), timeout=PROBE_TIMEOUT_SEC) as sock:
        try:
            sock.sendall(frame)
            readable, _, _ = select.select([sock], [], [], CASE_WAIT_SEC)
            if readable:
                sock.recv(1 << 16)
        except OSError:
            pass  # the broker closed it first: an allowed answer to a malformed request


def run_cases(broker: EmbeddedBroker, corpus: list[Seed], error_log: ErrorLog,
              seed: int, cases: int) -> None:
    rng = random.Random(seed)
    started = time.monotonic()
    print(f"\nbroker fuzz: seed {seed}, {cases} cases from {len(corpus)} requests")
    slowest: list[tuple[float, int, str]] = []
    for case in range(cases):
        source = rng.choice(corpus)
        frame = mutate(rng, source, corpus)
        case_started = time.monotonic()
        send_case(broker.port, frame)
        where = (f"seed {seed}, case {case} (from {source.api} v{source.version}), "
                 f"frame {frame.hex()}")
        assert api_versions_answered(broker.port, case), f"broker stopped answering after {where}"
        assert not error_log.lines, f"internal error after {where}:\n" + "\n".join(error_log.lines)
        slowest = sorted([*slowest, (time.monotonic() - case_started, case, source.api)])[-3:]
    print(f"broker fuzz: {cases} cases passed in {time.monotonic() - started:.1f} s; slowest "
          + ", ".join(f"case {n} ({api}) {sec * 1000:.0f} ms" for sec, n, api in reversed(slowest)))


def produce_and_consume(bootstrap: str, topic: str) -> None:
    """A normal client still works: a fresh topic, one record produced and read back."""
    create_topic(bootstrap, topic)
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
    try:
        producer.send(topic, key=b"after", value=b"fuzzing").get(timeout=10)
    finally:
        producer.close(5)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest")
    try:
        consumer.assign([TopicPartition(topic, 0)])
        deadline = time.monotonic() + 10
        values: list[bytes] = []
        while b"fuzzing" not in values and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=500).values():
                values += [record.value for record in records]
    finally:
        consumer.close()
    assert b"fuzzing" in values


def test_every_request_of_the_corpus_is_answered(broker: EmbeddedBroker, corpus: list[Seed],
                                                 error_log: ErrorLog) -> None:
    """The undamaged corpus is real traffic: each request gets an answer with its correlation
    id (so the fuzzer starts from requests that reach the handlers, not from noise)."""
    for seed_request in corpus:
        correlation_id = struct.unpack_from(">i", seed_request.frame, 8)[0]
        with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as sock:
            sock.sendall(seed_request.frame)
            answer = recv_frame(sock)
        assert struct.unpack_from(">i", answer)[0] == correlation_id, seed_request
    assert not error_log.lines


def test_mutated_requests_never_stop_the_broker(broker: EmbeddedBroker, corpus: list[Seed],
                                                error_log: ErrorLog) -> None:
    run_cases(broker, corpus, error_log, SEED, FAST_CASES)
    produce_and_consume(broker.bootstrap_servers, f"after-{SEED}")


@pytest.mark.e2e
def test_many_more_mutated_requests_never_stop_the_broker(broker: EmbeddedBroker,
                                                          corpus: list[Seed],
                                                          error_log: ErrorLog) -> None:
    run_cases(broker, corpus, error_log, SEED + 1, SLOW_CASES)
    produce_and_consume(broker.bootstrap_servers, f"after-{SEED + 1}")
