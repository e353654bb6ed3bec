"""A real terminal for tests: a private tmux server, keys sent, the screen (and its history) read.

What a person sees differs from what a pipe gets: rich draws panels and colours only on a
terminal. Tests of that run the command inside tmux and read the pane back as text.

Usage:
    with TmuxScreen("t1", width=160, height=50) as tmux:
        tmux.start("uv run python -m scenarios run checkpoint-reset --fast")
        tmux.wait(r"PASSED", timeout=300)
        text = tmux.history()
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path
from types import TracebackType

from launch.errors import WaitTimeout
from launch.waiting import wait_until

__all__ = ["TmuxScreen"]


class TmuxScreen:
    """One tmux session of a fixed size on a server of its own (a context manager)."""

    def __init__(self, name: str, width: int = 160, height: int = 50) -> None:
        self.name, self.width, self.height = name, width, height

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def start(self, command: str) -> None:
        # The history limit applies to panes made after it is set: set it first, in one call.
        self._tmux(
            "-f",
            "/dev/null",
            "start-server",
            ";",
            "set-option",
            "-g",
            "history-limit",
            "100000",
            ";",
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(self.width),
            "-y",
            str(self.height),
            command,
        )

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def history(self) -> str:
        """Everything the pane printed, scrolled-off lines included."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", self.name)

    def wait(self, pattern: str, timeout: float = 60.0) -> re.Match[str]:
        """The first match of `pattern` in the pane's history; else fail showing the screen."""
        try:
            return wait_until(
                lambda: re.search(pattern, self.history()),
                timeout=timeout,
                poll=0.3,
                what=f"{pattern!r} on the screen",
            )
        except WaitTimeout as timed_out:
            raise AssertionError(f"{timed_out}; the screen:\n{self.screen()}") from None

    def close(self) -> None:
        """Kill the server, and return once the panes' shells are gone: tmux's hangup reaches
        them a moment later, and on a loaded machine a test's check for leftover processes
        had found the shell still there (CI, 26 Nov: its command line names the report)."""
        pids = [int(pid) for pid in self._tmux("list-panes", "-a", "-F", "#{pane_pid}").split()]
        self._tmux("kill-server")
        try:
            wait_until(
                lambda: not any(_alive(pid) for pid in pids) or None,
                timeout=15,
                poll=0.1,
                what="the panes' processes to exit",
            )
        except WaitTimeout:
            for pid in pids:
                _kill(pid)

    def __enter__(self) -> TmuxScreen:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _alive(pid: int) -> bool:
    """Running, not a zombie (an orphaned shell waits for whoever reaps it; it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
