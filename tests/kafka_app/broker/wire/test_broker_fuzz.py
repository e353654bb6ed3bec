"""A seeded fuzzer: damaged copies of real requests must never stop the broker.

One broker serves the whole module. The corpus (fuzz_corpus.py) is what kafka-python really sent
in a normal session, recorded on the wire, plus a request for every API key and version the
broker advertises. Each case is a mutated copy of one of them, sent on its own connection; after
each case a fresh connection's ApiVersions must be answered within 2 s, and no log line may say
the broker hit an internal error (a malformed field must get Kafka's error code or a closed
connection). At the end a normal client still creates a topic, produces, consumes and commits.

    uv run pytest tests/kafka_app/broker/wire/test_broker_fuzz.py                  # 3,000 cases, seed 13
    BROKER_FUZZ_SEED=7 BROKER_FUZZ_CASES=20000 uv run pytest tests/kafka_app/broker/wire/test_broker_fuzz.py
    uv run pytest --slow tests/kafka_app/broker/wire/test_broker_fuzz.py           # also 20,000 more cases

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

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from launch.ports import free_port
from tests.kafka_app.broker.broker_helpers import api_versions_answered, create_topic, recv_frame
from tests.kafka_app.broker.wire.fuzz_corpus import (
    Seed,
    build_corpus,
    client_session,
    mutate,
    recorded_corpus,
)

SEED = int(os.environ.get("BROKER_FUZZ_SEED", "13"))
FAST_CASES = int(os.environ.get("BROKER_FUZZ_CASES", "3000"))
SLOW_CASES = int(os.environ.get("BROKER_FUZZ_SLOW_CASES", "20000"))
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
def recorder_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def broker(
    tmp_path_factory: pytest.TempPathFactory, recorder_port: int
) -> Iterator[EmbeddedBroker]:
    data_dir: Path = tmp_path_factory.mktemp("fuzz") / "data"
    # No initial rebalance delay: each JoinGroup of the corpus would wait 3 s for company. The
    # second listener advertises the recorder, so a client bootstrapped there stays behind it.
    settings = BrokerSettings(
        port=0,
        data_dir=data_dir,
        group_initial_rebalance_delay_ms=0,
        second_listener=f"{free_port()}=127.0.0.1:{recorder_port}",
    )
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
def corpus(broker: EmbeddedBroker, recorder_port: int) -> list[Seed]:
    second_port = int(broker.settings.second_listener.split("=")[0])
    return recorded_corpus(("127.0.0.1", second_port), recorder_port) + build_corpus(TOPIC)


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


def run_cases(
    broker: EmbeddedBroker,
    corpus: list[Seed],
    error_log: ErrorLog,
    seed: int,
    cases: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rng = random.Random(seed)
    started = time.monotonic()
    slowest: list[tuple[float, int, str]] = []
    for case in range(cases):
        source = rng.choice(corpus)
        frame = mutate(rng, source, corpus)
        case_started = time.monotonic()
        send_case(broker.port, frame)
        where = (
            f"seed {seed}, case {case} (from {source.api} v{source.version}), frame {frame.hex()}"
        )
        assert api_versions_answered(broker.port, case, PROBE_TIMEOUT_SEC), (
            f"broker stopped answering after {where}"
        )
        assert not error_log.lines, f"internal error after {where}:\n" + "\n".join(error_log.lines)
        slowest = sorted([*slowest, (time.monotonic() - case_started, case, source.api)])[-3:]
    with capsys.disabled():  # in CI's log too, not only under -s
        print(
            f"\nbroker fuzz: seed {seed}, {cases} cases from {len(corpus)} requests passed in "
            f"{time.monotonic() - started:.1f} s; slowest "
            + ", ".join(
                f"case {n} ({api}) {sec * 1000:.0f} ms" for sec, n, api in reversed(slowest)
            )
        )


def test_the_corpus_holds_what_real_clients_send(corpus: list[Seed]) -> None:
    recorded = {seed.api.removesuffix(" (recorded)") for seed in corpus if "recorded" in seed.api}
    assert {
        "Metadata",
        "Produce",
        "Fetch",
        "ListOffsets",
        "FindCoordinator",
        "JoinGroup",
        "SyncGroup",
        "Heartbeat",
        "OffsetCommit",
        "OffsetFetch",
        "CreateTopics",
        "ApiVersions",
    } <= recorded, sorted(recorded)


def test_every_request_of_the_corpus_is_answered(
    broker: EmbeddedBroker, corpus: list[Seed], error_log: ErrorLog
) -> None:
    """The undamaged corpus is real traffic: each request gets an answer with its correlation
    id (so the fuzzer starts from requests that reach the handlers, not from noise)."""
    for seed_request in corpus:
        if seed_request.api == "JoinGroup (recorded)":
            continue  # its recorded member would wait in a rebalance for a session timeout
        correlation_id = struct.unpack_from(">i", seed_request.frame, 8)[0]
        with socket.create_connection(("127.0.0.1", broker.port), timeout=10) as sock:
            sock.sendall(seed_request.frame)
            answer = recv_frame(sock)
        assert struct.unpack_from(">i", answer)[0] == correlation_id, seed_request
    assert not error_log.lines


def test_mutated_requests_never_stop_the_broker(
    broker: EmbeddedBroker,
    corpus: list[Seed],
    error_log: ErrorLog,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cases(broker, corpus, error_log, SEED, FAST_CASES, capsys)
    client_session(broker.bootstrap_servers, f"after-{SEED}")


# 20,000 cases, 1.5-2 min: nightly (docs/testing.md#nightly); the fast suite fuzzes FAST_CASES.
@pytest.mark.e2e
@pytest.mark.nightly
def test_many_more_mutated_requests_never_stop_the_broker(
    broker: EmbeddedBroker,
    corpus: list[Seed],
    error_log: ErrorLog,
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_cases(broker, corpus, error_log, SEED + 1, SLOW_CASES, capsys)
    client_session(broker.bootstrap_servers, f"after-{SEED + 1}")
