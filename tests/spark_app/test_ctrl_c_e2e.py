"""Ctrl-C on `python -m spark_app` in a real terminal: one stop line, no traceback, exit 0 or 130.

A terminal's Ctrl-C is SIGINT to the whole foreground process group (the driver, its JVM, Spark's
Python workers), which a pipe or `kill PID` does not reproduce: the app runs in a tmux pane, the
keys are sent with `send-keys` and the screen is read with `capture-pane`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.query.graceful_stop import is_stop_line
from spark_app.settings import SparkAppSettings
from tests.spark_app.app_process import REPO_ROOT, wait_until
from tests.spark_app.kafka_helpers import create_topic, send_counter

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

START_SEC = 600  # a cold Spark start on a busy two-core machine has taken minutes
STOP_SEC = 120
_EXITED = re.compile(r"APP-EXITED (\d+)")


class Pane:
    """One tmux pane on a private server, running a command without a shell in between."""

    def __init__(self, name: str) -> None:
        self.name = name

    def _tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.name, *args], capture_output=True, text=True, timeout=10
        ).stdout

    def start(self, *argv: str) -> None:
        self._tmux("new-session", "-d", "-s", self.name, "-x", "160", "-y", "50", *argv)

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def screen(self) -> str:
        """Everything the pane showed, scrolled-off lines included."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.name)

    def close(self) -> None:
        self._tmux("kill-server")


def test_ctrl_c_stops_the_app_with_one_line(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 6))
    settings = SparkAppSettings(
        bootstrap_servers=bootstrap,
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"),
        log_dir=tmp_path / "log",
    )
    app = shlex.join([sys.executable, "-m", "spark_app", *settings.to_argv()])
    # bash waits for the app and runs the trap on the interrupt; the app keeps the default.
    # COLUMNS/LINES from the test run would pin rich to 80x24 inside the 160x50 pane.
    script = (
        f"trap true INT; cd {shlex.quote(str(REPO_ROOT))} && env -u COLUMNS -u LINES {app}; "
        f"echo APP-EXITED $?; sleep 120"
    )
    pane = Pane(f"ctrl-c-test-{os.getpid()}")
    pane.start("bash", "-c", script)
    try:
        wait_until(
            lambda: re.search(r"^batch \d+: ", pane.screen(), re.MULTILINE) is not None,
            START_SEC,
            "the first batch line on the screen",
        )
        pane.keys("C-c")
        wait_until(lambda: _EXITED.search(pane.screen()) is not None, STOP_SEC, "the app to exit")
        screen = pane.screen()
    finally:
        pane.close()
    after = screen[screen.rindex("Streaming ") :]
    assert "Traceback" not in after and "Exception" not in after, screen
    stop_lines = [line for line in screen.splitlines() if is_stop_line(line.removeprefix("^C"))]
    assert len(stop_lines) == 1, screen
    exited = _EXITED.search(screen)
    assert exited is not None and int(exited[1]) in (0, 130), screen
    # The stop line is the app's last: every batch's line came before it.
    last = after[: after.index("APP-EXITED")].strip().splitlines()[-1]
    assert is_stop_line(last.removeprefix("^C")), screen
