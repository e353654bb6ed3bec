"""One real child process, started, watched, killed and always cleaned up.

Each `ManagedProcess` runs in its own process group (a new session), its stdout and stderr
captured to a file that can be read while it runs. Killing it kills the whole group: a PySpark
driver starts a JVM as its child, and `kill -9` of the driver alone would leave that JVM
holding ports and files. Several processes that belong together go in a `ProcessGroup`
(launch/group.py), which stops them all when its `with` block ends.

Usage:
    with ManagedProcess("spark", spark_command(settings), output=Path("spark.out")) as spark:
        spark.wait_for(r"Count = 5", timeout=60)
        spark.kill()
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO, TypeVar

from launch.errors import ProcessError
from launch.hangup import die_with_parent
from launch.waiting import Progress, wait_until

__all__ = ["ManagedProcess", "wait_while_alive", "CONSOLE_SUFFIX"]

# Each process's console file in a group's folder (a scenario's processes/) is `<name>.out`.
CONSOLE_SUFFIX = ".out"

T = TypeVar("T")


class ManagedProcess:
    """One child process with captured output; start and stop are idempotent."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        *,
        output: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.output_path = output
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self._popen: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None

    # -- life cycle -------------------------------------------------------------------------
    def start(self) -> ManagedProcess:
        if self._popen is not None:
            return self
        self.output_path.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.output_path.open("ab")
        env = {**os.environ, **(self.env or {}), "PYTHONUNBUFFERED": "1"}
        try:
            self._popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=self._out,
                stderr=subprocess.STDOUT,
                cwd=self.cwd,
                env=env,
                # Its own session, so the group id is its pid and a kill reaches its children too.
                start_new_session=True,
                # Out of the terminal's reach, so it must not outlive us, however we end.
                preexec_fn=partial(die_with_parent, os.getpid()),
            )
        except OSError as error:
            self._out.close()
            raise ProcessError(f"cannot start {self.name} ({self.argv[0]}): {error}") from error
        return self

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen else None

    @property
    def running(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    @property
    def returncode(self) -> int | None:
        return self._popen.poll() if self._popen else None

    def kill(self) -> None:
        """kill -9 of the whole process group: no shutdown hook, no flush, like a power cut."""
        self._signal_group(signal.SIGKILL)
        self._reap(timeout=10)

    def terminate(self, timeout: float = 30.0, sig: signal.Signals = signal.SIGTERM) -> int | None:
        """SIGTERM (or `sig`, e.g. SIGINT for Ctrl-C) to the process itself (it stops its own
        children), kill -9 after `timeout`.

        Returns the exit code. The group is killed afterwards anyway, to leave nothing behind.
        """
        if self._popen is None:
            return None
        if self.running:
            self._popen.send_signal(sig)
            try:
                self._popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.kill()
        return self.returncode

    def stop(self) -> None:
        """Make sure nothing of this process is left (idempotent)."""
        if self._popen is not None:
            self.kill()
        if self._out is not None:
            self._out.close()
            self._out = None

    def _signal_group(self, sig: signal.Signals) -> None:
        if self._popen is None:
            return
        try:
            os.killpg(self._popen.pid, sig)
        except ProcessLookupError:
            pass  # the group is already empty: nothing left to kill

    def _reap(self, timeout: float) -> None:
        if self._popen is not None:
            try:
                self._popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired as error:
                raise ProcessError(
                    f"{self.name} (pid {self._popen.pid}) survived kill -9"
                ) from error

    # -- talking to it ------------------------------------------------------------------------
    def send_line(self, text: str = "") -> None:
        """Write one line to its stdin (for the producer: the next key is negative)."""
        if self._popen is None or self._popen.stdin is None or not self.running:
            raise ProcessError(f"{self.name} is not running; cannot write to its stdin")
        self._popen.stdin.write(text.encode() + b"\n")
        self._popen.stdin.flush()

    def output(self, since: int = 0) -> str:
        """Everything it printed so far (from byte `since`)."""
        try:
            with self.output_path.open("rb") as handle:
                handle.seek(since)
                return handle.read().decode("utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def mark(self) -> int:
        """A position in its output; pass it as `since` to look only at what comes after."""
        try:
            return self.output_path.stat().st_size
        except FileNotFoundError:
            return 0

    def tail(self, lines: int = 3) -> str:
        """Its last lines, without Spark's progress bars (drawn with carriage returns)."""
        text = self.output().replace("\r", "\n")
        kept = [
            line for line in text.splitlines() if line.strip() and not line.startswith("[Stage")
        ]
        return "\n".join(kept[-lines:])

    # -- waiting ------------------------------------------------------------------------------
    def wait_for(
        self,
        pattern: str | Callable[[str], object],
        *,
        timeout: float,
        since: int = 0,
        what: str | None = None,
        progress: Progress | None = None,
    ) -> object:
        """Wait until its output (from `since`) matches `pattern` (regex or predicate).

        Returns the regex match (or the predicate's result). Raises ProcessError with the last
        lines of output if the process ends first, WaitTimeout if the deadline passes.
        """

        def look() -> object:
            text = self.output(since)
            return re.search(pattern, text) if isinstance(pattern, str) else pattern(text)

        label = what or (f"output matching {pattern!r}" if isinstance(pattern, str) else "output")
        return wait_while_alive(
            self,
            look,
            timeout=timeout,
            what=label,
            progress=progress,
            shown_as=f"{self.name}: {label}",
        )

    def wait_exit(self, timeout: float, progress: Progress | None = None) -> int:
        """Wait for it to end by itself; returns the exit code."""
        wait_until(
            lambda: self.returncode is not None,
            timeout=timeout,
            what=f"{self.name} to exit",
            progress=progress,
        )
        self.stop()  # its children may outlive it
        return self.returncode if self.returncode is not None else -1

    def __enter__(self) -> ManagedProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ManagedProcess({self.name!r}, pid={self.pid}, running={self.running})"


def wait_while_alive(
    process: ManagedProcess,
    condition: Callable[[], T | None],
    *,
    what: str,
    timeout: float,
    poll: float = 0.2,
    progress: Progress | None = None,
    name: str | None = None,
    last_words: Callable[[], str] | None = None,
    shown_as: str | None = None,
) -> T:
    """Poll `condition` until it returns something true (not None, False or empty), and return
    that; fail at once, with what the process said last, if `process` ends first: a dead app
    never makes the condition true.

    Usage: `wait_while_alive(spark, lambda: log_has(10) or None, what="value 10", timeout=60)`
    """

    def check() -> T | None:
        alive = process.running  # before looking: what it wrote last is then visible
        found = condition()
        if found:  # an empty list of batch lines is nothing yet, as None is
            return found
        if not alive:
            said = last_words() if last_words is not None else process.tail()
            raise ProcessError(
                f"{name or process.name} exited with code {process.returncode} "
                f"before {what}; last output:\n{said}"
            )
        return None

    return wait_until(check, timeout=timeout, what=shown_as or what, poll=poll, progress=progress)
