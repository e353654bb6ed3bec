"""A JVM child that dies with us: its own process group, and PR_SET_PDEATHSIG as a backstop.

Shared by Apache Kafka (kafka_app/apache/) and the checkpoint stores (checkpoint_stores/),
which start their JVMs from jars this package fetched.

Its own process group, so a Ctrl-C at the terminal reaches only us and we stop Kafka in
order (SIGTERM, a wait, then SIGKILL). PR_SET_PDEATHSIG(SIGKILL), so that when our Python
process dies however it dies (kill -9 included) the kernel kills the JVM too. The kernel sends
it when the *thread* that started the child ends, so start JVMs from a thread that lives as
long as the process (the main thread, as the CLIs do).

Usage:
    jvm = Jvm.start(["java", "-cp", cp, "kafka.Kafka", "server.properties"], output=log_file)
    jvm.stop()   # SIGTERM, wait, SIGKILL; idempotent
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Jvm", "NO_PERF_FILE"]

_PR_SET_PDEATHSIG = 1
# Every JVM of ours: a JVM keeps its counters in /tmp/hsperfdata_<user>/<pid>, which a kill -9
# leaves behind (the scenarios kill JVMs on purpose), and even a clean exit leaves the folder;
# nothing of ours reads them (jstat and jcmd would).
NO_PERF_FILE = "-XX:-UsePerfData"


def _die_with_parent(parent: int) -> None:
    """Runs in the child between fork and exec."""
    os.setsid()
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # The parent may have died before prctl: then nobody would ever send the signal.
        if os.getppid() != parent:
            os._exit(1)


class Jvm:
    """One running `java` child; `stop` and `kill` are idempotent."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @classmethod
    def start(cls, argv: Sequence[str], *, output: Path, env: dict[str, str] | None = None) -> Jvm:
        """Start `argv` with stdout and stderr appended to `output` (the node's log file)."""
        output.parent.mkdir(parents=True, exist_ok=True)
        parent = os.getpid()
        with output.open("ab") as sink:  # the child keeps its own copy of the descriptor
            process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
                preexec_fn=lambda: _die_with_parent(parent),
            )
        return cls(process)

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    @property
    def returncode(self) -> int | None:
        return self.process.poll()

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM (Kafka shuts down cleanly on it), then SIGKILL after `timeout` seconds."""
        if not self.running:
            self.process.poll()
            return
        self._signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL, like a power cut: no shutdown hook runs."""
        if self.running:
            self._signal(signal.SIGKILL)
        self.process.wait()

    def _signal(self, signum: int) -> None:
        try:
            os.killpg(self.process.pid, signum)  # the group: whatever the JVM started, too
        except ProcessLookupError:
            pass

    def wait(self, timeout: float) -> int | None:
        """The exit code once it exited, or None if it still runs after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.running and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.returncode
