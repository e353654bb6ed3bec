"""Closing the terminal of an app started as the README starts it, with `uv run`, leaves nothing
running within 15 s: `scenarios run`, the producer and the Spark app (JVM and Python workers
included).

`uv run` stands between the terminal and our process: the kernel's SIGHUP goes to uv, which
passes its own copy on, and the terminal's reads and writes fail (EIO) before either arrives.
Each command runs in a real terminal (tmux) with a mark in its environment, inherited by every
descendant, which is how the test finds whatever is left.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        shutil.which("tmux") is None or shutil.which("uv") is None, reason="needs tmux and uv"
    ),
]

MARK = "CHECKPOINT_TERMINAL_TEST"
SPARK_START_SEC = 600.0  # a cold PySpark start on a busy machine
GONE_WITHIN_SEC = 15.0


def marked(value: str) -> list[int]:
    """Pids of live processes whose environment carries MARK=value."""
    mark = f"{MARK}={value}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue  # gone meanwhile, or a zombie
    return pids


def poll(check: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while not (found := check()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what} not seen within {timeout:.0f} s")
        time.sleep(0.5)
    return found


class Terminal:
    """One tmux session running `uv run …` from the project, with the mark in its environment."""

    def __init__(self, name: str, mark: str, command: list[str]) -> None:
        self.name, self.mark = name, mark
        line = " ".join(shlex.quote(part) for part in command)
        self._tmux(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "160",
            "-y",
            "50",
            f"cd {shlex.quote(str(PROJECT_ROOT))} && env -u COLUMNS -u LINES "
            f"{MARK}={shlex.quote(mark)} uv run {line}",
        )

    def _tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def close_and_expect_nothing_left(self) -> None:
        assert marked(self.mark), "the command under test is not running"
        self._tmux("kill-server")  # the terminal goes away
        poll(
            lambda: not marked(self.mark),
            GONE_WITHIN_SEC,
            f"nothing left of `{self.mark}` (left: {marked(self.mark)})",
        )

    def cleanup(self) -> list[int]:
        self._tmux("kill-server")
        left = marked(self.mark)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return left


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Callable[[list[str]], Terminal]]:
    opened: list[Terminal] = []

    def open_(command: list[str]) -> Terminal:
        opened.append(Terminal(f"closed-{os.getpid()}-{len(opened)}", str(tmp_path), command))
        return opened[-1]

    yield open_
    assert not [pid for t in opened for pid in t.cleanup()], "processes left behind"


def _output_log_written(log: Path) -> bool:
    return log.exists() and log.stat().st_size > 0


def test_the_producer_goes_with_its_terminal(terminal, tmp_path: Path, free_port: int) -> None:  # type: ignore[no-untyped-def]
    kafka = terminal(
        [
            "python",
            "-m",
            "kafka_app",
            "--port",
            str(free_port),
            "--data-dir",
            str(tmp_path / "data"),
            "--log-dir",
            str(tmp_path / "log"),
        ]
    )
    poll(lambda: "Experience [" in kafka.screen(), 120, "the producer's first message")
    kafka.close_and_expect_nothing_left()


def test_the_spark_app_goes_with_its_terminal_jvm_and_all(
    terminal,
    tmp_path: Path,  # type: ignore[no-untyped-def]
    free_port: int,
) -> None:
    producer = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafka_app",
            "--port",
            str(free_port),
            "--retention-sec",
            "3600",
            "--data-dir",
            str(tmp_path / "data"),
            "--log-dir",
            str(tmp_path / "kafka-log"),
        ],
        cwd=PROJECT_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        spark = terminal(
            [
                "python",
                "-m",
                "spark_app",
                "--bootstrap-servers",
                f"127.0.0.1:{free_port}",
                "--checkpoint-dir",
                str(tmp_path / "cp"),
                "--log-dir",
                str(tmp_path / "log"),
            ]
        )
        poll(
            lambda: _output_log_written(tmp_path / "log" / "streaming-output.log"),
            SPARK_START_SEC,
            "the Spark app's first output",
        )
        spark.close_and_expect_nothing_left()
    finally:
        producer.terminate()
        producer.wait(timeout=30)


def test_a_scenario_run_goes_with_its_terminal(terminal, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    reports = tmp_path / "reports"
    run = terminal(
        [
            "python",
            "-m",
            "scenarios",
            "run",
            "endless-retention",
            "--fast",
            "--report",
            str(reports),
        ]
    )
    poll(
        lambda: _output_log_written(reports / "endless-retention" / "log" / "streaming-output.log"),
        SPARK_START_SEC,
        "the scenario's Spark app's first output",
    )
    run.close_and_expect_nothing_left()
