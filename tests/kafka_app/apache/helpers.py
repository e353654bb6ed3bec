"""Helpers of the Apache Kafka tests: the JVMs we started, found in /proc, and the CLI as a child.

Usage: `assert kafka_jvms(data_dir) == []` after a stop: no `kafka.Kafka` JVM serving that folder.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "cli_process",
    "free_port",
    "kafka_jvms",
    "start_cli",
    "stdout_lines",
    "stop_with",
    "wait_for_line",
    "wait_gone",
]


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now (never 9092 unless the OS hands it out)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def kafka_jvms(marker: Path | str) -> list[int]:
    """Pids of `kafka.Kafka` JVMs whose command line names `marker` (a test's own folder), so
    other people's Kafka on this machine never counts."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            argv = _cmdline(int(entry))
            if "kafka.Kafka" in argv and any(str(marker) in part for part in argv):
                found.append(int(entry))
    return found


def start_cli(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """`python -m kafka_app …` in its own session, stdout and stderr as text pipes."""
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "kafka_app", *argv],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


@contextmanager
def cli_process(argv: list[str], cwd: Path) -> Iterator[subprocess.Popen[str]]:
    """`start_cli`, killed and reaped however the block ends, so a failed test leaves no CLI."""
    cli = start_cli(argv, cwd=cwd)
    try:
        yield cli
    finally:
        cli.kill()
        cli.wait()


def stop_with(cli: subprocess.Popen[str], signum: int, marker: Path) -> None:
    """Send `signum` to a CLI running one Kafka JVM (found by `marker`); expect exit 0 and the
    JVM gone within 5 s."""
    jvms = kafka_jvms(marker)
    assert len(jvms) == 1
    cli.send_signal(signum)
    assert cli.wait(60) == 0
    assert wait_gone(jvms, 5) == []


_LINES: dict[int, list[str]] = {}


def _collect(process: subprocess.Popen[str]) -> list[str]:
    """Lines of the process's stdout, filled by a reader thread (started on first use)."""
    if process.pid not in _LINES:
        lines: list[str] = []
        _LINES[process.pid] = lines
        assert process.stdout is not None
        stdout = process.stdout
        threading.Thread(
            target=lambda: lines.extend(iter(stdout.readline, "")), daemon=True
        ).start()
    return _LINES[process.pid]


def stdout_lines(process: subprocess.Popen[str]) -> list[str]:
    """Every stdout line read so far (after the process ended: all of them)."""
    return list(_collect(process))


def wait_for_line(process: subprocess.Popen[str], prefix: str, timeout: float) -> str:
    """The first stdout line starting with `prefix`; fails with stderr if the process ends first."""
    deadline = time.monotonic() + timeout
    lines = _collect(process)
    while time.monotonic() < deadline:
        for line in list(lines):
            if line.startswith(prefix):
                return line
        if process.poll() is not None:
            time.sleep(0.3)  # let the reader thread take the last lines
            if not any(line.startswith(prefix) for line in lines):
                raise AssertionError(
                    f"exited {process.returncode} before {prefix!r}: {''.join(lines)} "
                    f"{process.stderr.read() if process.stderr else ''}"
                )
        time.sleep(0.2)
    process.send_signal(signal.SIGKILL)
    raise AssertionError(f"no line {prefix!r} within {timeout} s: {''.join(lines)}")


def _alive(pid: int) -> bool:
    try:
        return "State:\tZ" not in Path(f"/proc/{pid}/status").read_text(errors="replace")
    except OSError:
        return False


def wait_gone(pids: list[int], timeout: float) -> list[int]:
    """The pids still alive after `timeout` seconds (empty: all gone)."""
    deadline = time.monotonic() + timeout
    alive = list(pids)
    while alive and time.monotonic() < deadline:
        alive = [pid for pid in alive if _alive(pid)]
        time.sleep(0.1)
    return alive
