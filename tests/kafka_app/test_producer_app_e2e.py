"""`python -m kafka_app` as a user runs it: a real process with its own embedded broker.

Each test reads the app's stdout line by line, as a user watches it, and checks what the seed
says they should see.
"""

from __future__ import annotations

import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_app.broker import EmbeddedBroker
pytestmark = pytest.mark.e2e

_REPO = Path(__file__).resolve().parents[2]
LINE = re.compile(r"^(?P<topic>\S+) \[(?P<earliest>\d+):(?P<latest>\d+)\]: (?P<key>-?\d+) -> (?P<value>\d+)$")


class AppProcess:
    """`python -m kafka_app ...` with stdin and stdout as pipes; its lines are collected as they come."""

    def __init__(self, *args: str) -> None:
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kafka_app", *args],
            cwd=_REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 30.0) -> str:
        """The first new line satisfying `predicate`; fails with what was seen at the deadline."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            if predicate(line):
                return line
        raise AssertionError(f"no matching line in {timeout} s; exit code {self.process.poll()}; "
                             f"saw {self.lines[-20:]}; stderr {self.stderr_if_done()!r}")

    def messages(self, count: int, timeout: float = 30.0) -> list[re.Match[str]]:
        """The next `count` message lines, parsed."""
        found = []
        for _ in range(count):
            match = LINE.match(self.wait_for(lambda line: LINE.match(line) is not None, timeout))
            assert match is not None
            found.append(match)
        return found

    def enter(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.flush()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def stderr_if_done(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return ""
        return self.process.stderr.read()

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def apps() -> Iterator[Callable[..., AppProcess]]:
    started: list[AppProcess] = []

    def start(*args: str) -> AppProcess:
        app = AppProcess(*args)
        started.append(app)
        return app

    yield start
    for app in started:
        app.kill()


def _common(port: int, tmp_path: Path) -> list[str]:
    return ["--port", str(port), "--log-dir", str(tmp_path / "log"), "--interval-sec", "0.2"]


def test_lines_count_up_and_enter_makes_the_next_key_negative(
    apps: Callable[..., AppProcess], free_port: int, tmp_path: Path
) -> None:
    app = apps(*_common(free_port, tmp_path))
    app.wait_for(lambda l: "Press Enter" in l)
    first = app.messages(3)
    assert [(m["topic"], m["key"], m["value"]) for m in first] == [("Experience", "1", "1"), ("Experience", "2", "2"), ("Experience", "3", "3")]
    assert [int(m["latest"]) for m in first] == [1, 2, 3] and {m["earliest"] for m in first} == {"0"}
    app.enter()
    negative = app.wait_for(lambda l: "]: -" in l)
    match = LINE.match(negative)
    assert match is not None and int(match["key"]) == -int(match["value"])
    following = app.messages(2)
    assert all(int(m["key"]) > 0 for m in following)
    assert app.stop(signal.SIGTERM) == 0
    logged = (tmp_path / "log" / "kafka.log").read_text()
    assert negative in logged


def test_ctrl_c_stops_cleanly(apps: Callable[..., AppProcess], free_port: int, tmp_path: Path) -> None:
    app = apps(*_common(free_port, tmp_path))
    app.messages(1)
    assert app.stop(signal.SIGINT) == 0
    # The broker closed with it: the port is free again.
    with socket.socket() as s:
        s.bind(("127.0.0.1", free_port))


def test_rerun_with_the_same_data_dir_continues_after_the_highest_value(
    apps: Callable[..., AppProcess], free_port: int, tmp_path: Path
) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    first = apps(*_common(free_port, tmp_path), *data, "--count", "4")
    last = first.messages(4)[-1]
    assert first.process.wait(timeout=30) == 0
    second = apps(*_common(free_port, tmp_path), *data, "--count", "2")
    again = second.messages(2)
    assert int(again[0]["value"]) == int(last["value"]) + 1
    assert int(again[0]["latest"]) == int(last["latest"]) + 1
    assert second.process.wait(timeout=30) == 0


def test_short_retention_visibly_moves_earliest(apps: Callable[..., AppProcess], free_port: int, tmp_path: Path) -> None:
    app = apps(*_common(free_port, tmp_path), "--retention-sec", "2", "--segment-sec", "0.5",
               "--retention-check-sec", "0.5", "--retention-initial-delay-sec", "0")
    moved = app.wait_for(lambda l: bool((m := LINE.match(l)) and int(m["earliest"]) > 0), timeout=40)
    match = LINE.match(moved)
    assert match is not None
    # Retention keeps roughly retention.ms worth of messages (2 s at 5 per second), never all.
    assert 0 < int(match["latest"]) - int(match["earliest"]) < int(match["latest"])
    assert app.stop() == 0


def test_unreachable_kafka_is_one_clear_line(free_port: int, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "kafka_app", "--bootstrap-servers", f"127.0.0.1:{free_port}", "--log-dir", str(tmp_path)],
        cwd=_REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and f"no Kafka answers at 127.0.0.1:{free_port}" in done.stderr


def test_port_in_use_is_one_clear_line(free_port: int, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port))
        taken.listen()
        done = subprocess.run(
            [sys.executable, "-m", "kafka_app", "--port", str(free_port), "--log-dir", str(tmp_path)],
            cwd=_REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and str(free_port) in done.stderr and "--port" in done.stderr


@pytest.mark.skipif(shutil.which("kcat") is None, reason="kcat is not installed (apt-get install kcat)")
def test_kcat_reads_what_the_app_produced(embedded_broker: EmbeddedBroker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    done = subprocess.run(
        [sys.executable, "-m", "kafka_app", "--bootstrap-servers", bootstrap, "--count", "5",
         "--interval-sec", "0.05", "--log-dir", str(tmp_path)],
        cwd=_REPO, capture_output=True, text=True, timeout=60, input="\n",
    )
    assert done.returncode == 0, done.stderr
    read = subprocess.run(
        ["kcat", "-C", "-b", bootstrap, "-t", "Experience", "-o", "beginning", "-e", "-q", "-f", "%k %s\n"],
        capture_output=True, text=True, timeout=60,
    )
    assert read.returncode == 0, read.stderr
    pairs = [line.split() for line in read.stdout.splitlines()]
    assert [abs(int(k)) for k, _ in pairs] == [1, 2, 3, 4, 5] == [int(v) for _, v in pairs]
    assert sum(int(k) < 0 for k, _ in pairs) == 1
