"""`python -m kafka_app` as a user runs it: a real process with its own embedded broker.

Each test reads the app's stdout line by line, as a user watches it, and checks what the seed
says they should see.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_app.broker import EmbeddedBroker
from kafka_app.message_line import ProducerLine, parse_message
from launch.process import ManagedProcess
from scenarios.engine.observers.kafka_probe import KafkaProbe

pytestmark = pytest.mark.e2e

_REPO = Path(__file__).resolve().parents[2]


class ProducerProcess(ManagedProcess):
    """`python -m kafka_app ...` as the scenarios run it, plus the producer's lines read back."""

    def sent(self, since: int = 0) -> list[ProducerLine]:
        """The message lines it printed (from byte `since`), parsed by the line's own module."""
        return [
            line
            for text in self.output(since).splitlines()
            if (line := parse_message(text)) is not None
        ]

    def messages(self, count: int, timeout: float = 30.0, since: int = 0) -> list[ProducerLine]:
        """The first `count` message lines after `since`, waiting for them."""
        self.wait_for(
            lambda _: len(self.sent(since)) >= count, timeout=timeout, what=f"{count} message lines"
        )
        return self.sent(since)[:count]

    def stop_with(self, sig: signal.Signals = signal.SIGTERM) -> int | None:
        return self.terminate(timeout=30, sig=sig)


@pytest.fixture
def apps(tmp_path: Path) -> Iterator[Callable[..., ProducerProcess]]:
    started: list[ProducerProcess] = []

    def start(*args: str) -> ProducerProcess:
        app = ProducerProcess(
            f"producer-{len(started)}",
            [sys.executable, "-m", "kafka_app", *args],
            output=tmp_path / f"producer-{len(started)}.out",
            cwd=_REPO,
        )
        started.append(app.start())
        return app

    yield start
    for app in started:
        app.stop()


def _common(port: int, tmp_path: Path) -> list[str]:
    return ["--port", str(port), "--log-dir", str(tmp_path / "log"), "--interval-sec", "0.2"]


def test_lines_count_up_and_enter_makes_the_next_key_negative(
    apps: Callable[..., ProducerProcess], free_port: int, tmp_path: Path
) -> None:
    app = apps(*_common(free_port, tmp_path))
    app.wait_for("Press Enter", timeout=30)
    first = app.messages(3)
    assert [(m.topic, m.key, m.value) for m in first] == [
        ("Experience", 1, 1),
        ("Experience", 2, 2),
        ("Experience", 3, 3),
    ]
    assert [m.latest for m in first] == [1, 2, 3] and {m.earliest for m in first} == {0}
    after_enter = app.mark()
    app.send_line()
    app.wait_for(
        lambda _: any(m.key < 0 for m in app.sent(after_enter)), timeout=30, what="a negative key"
    )
    [negative] = [m for m in app.sent(after_enter) if m.key < 0]
    assert negative.key == -negative.value
    following = app.messages(2, since=app.mark())
    assert all(m.key > 0 for m in following)
    assert app.stop_with(signal.SIGTERM) == 0
    logged = (tmp_path / "log" / "kafka.log").read_text()
    assert f"]: {negative.key} -> {negative.value}" in logged


def test_ctrl_c_stops_cleanly(
    apps: Callable[..., ProducerProcess], free_port: int, tmp_path: Path
) -> None:
    app = apps(*_common(free_port, tmp_path))
    app.messages(1)
    assert app.stop_with(signal.SIGINT) == 0
    # The broker closed with it: the port is free again.
    with socket.socket() as s:
        s.bind(("127.0.0.1", free_port))


def test_a_stop_at_any_moment_leaves_one_line_for_each_message_stored(
    apps: Callable[..., ProducerProcess], embedded_broker: EmbeddedBroker, tmp_path: Path
) -> None:
    # Messages back to back: a SIGTERM mostly lands while the producer waits for Kafka's
    # acknowledgement, where a stored message once went without its line (broker-failover).
    bootstrap = embedded_broker.bootstrap_servers
    printed: list[int] = []
    for run in range(6):
        app = apps(
            "--bootstrap-servers",
            bootstrap,
            "--log-dir",
            str(tmp_path / "log"),
            "--interval-sec",
            "0.001",
        )
        app.messages(10 + 7 * run)
        assert app.stop_with() == 0
        printed += [line.value for line in app.sent()]
    with KafkaProbe(bootstrap, "Experience") as probe:
        assert probe.values() == printed


def test_rerun_with_the_same_data_dir_continues_after_the_highest_value(
    apps: Callable[..., ProducerProcess], free_port: int, tmp_path: Path
) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    first = apps(*_common(free_port, tmp_path), *data, "--count", "4")
    last = first.messages(4)[-1]
    assert first.wait_exit(timeout=30) == 0
    second = apps(*_common(free_port, tmp_path), *data, "--count", "2")
    again = second.messages(2)
    assert again[0].value == last.value + 1
    assert again[0].latest == last.latest + 1
    assert second.wait_exit(timeout=30) == 0


def test_short_retention_visibly_moves_earliest(
    apps: Callable[..., ProducerProcess], free_port: int, tmp_path: Path
) -> None:
    app = apps(
        *_common(free_port, tmp_path),
        "--retention-sec",
        "2",
        "--segment-sec",
        "0.5",
        "--retention-check-sec",
        "0.5",
        "--retention-initial-delay-sec",
        "0",
    )
    app.wait_for(
        lambda _: any(m.earliest > 0 for m in app.sent()), timeout=40, what="earliest to move"
    )
    moved = next(m for m in app.sent() if m.earliest > 0)
    # Retention keeps roughly retention.ms worth of messages (2 s at 5 per second), never all.
    assert 0 < moved.latest - moved.earliest < moved.latest
    assert app.stop_with() == 0


def test_unreachable_kafka_is_one_clear_line(free_port: int, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_app",
            "--bootstrap-servers",
            f"127.0.0.1:{free_port}",
            "--log-dir",
            str(tmp_path),
        ],
        cwd=_REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert (
        done.stderr.count("\n") == 1 and f"no Kafka answers at 127.0.0.1:{free_port}" in done.stderr
    )


def test_port_in_use_is_one_clear_line(free_port: int, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port))
        taken.listen()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "kafka_app",
                "--port",
                str(free_port),
                "--log-dir",
                str(tmp_path),
            ],
            cwd=_REPO,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 1
    assert (
        done.stderr.count("\n") == 1 and str(free_port) in done.stderr and "--port" in done.stderr
    )


@pytest.mark.skipif(
    shutil.which("kcat") is None, reason="kcat is not installed (apt-get install kcat)"
)
def test_kcat_reads_what_the_app_produced(embedded_broker: EmbeddedBroker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_app",
            "--bootstrap-servers",
            bootstrap,
            "--count",
            "5",
            "--interval-sec",
            "0.05",
            "--log-dir",
            str(tmp_path),
        ],
        cwd=_REPO,
        capture_output=True,
        text=True,
        timeout=60,
        input="\n",
    )
    assert done.returncode == 0, done.stderr
    read = subprocess.run(
        [
            "kcat",
            "-C",
            "-b",
            bootstrap,
            "-t",
            "Experience",
            "-o",
            "beginning",
            "-e",
            "-q",
            "-f",
            "%k %s\n",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert read.returncode == 0, read.stderr
    pairs = [line.split() for line in read.stdout.splitlines()]
    assert [abs(int(k)) for k, _ in pairs] == [1, 2, 3, 4, 5] == [int(v) for _, v in pairs]
    assert sum(int(k) < 0 for k, _ in pairs) == 1
