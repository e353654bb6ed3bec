"""Ctrl-C in the middle of a fault: the nemesis stopped while the app stands paused (SIGSTOP) on
its own full-size tmpfs leaves nothing running, nothing stopped, nothing mounted and none of its
apps' folders in /tmp. On the offline stack, whose broker and source start fastest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from scenarios.checker.fault_history import HISTORY_FILE, read_history
from scenarios.engine.settings import PROJECT_ROOT

# With --faults pause,disk its first fault is a pause held 12.2 s, 6.1 s after the app counts.
PAUSE_FIRST_SEED = 31


@pytest.mark.e2e
def test_ctrl_c_during_a_pause_leaves_nothing_behind(tmp_path: Path) -> None:
    report = tmp_path / "reports"
    history = report / "nemesis" / HISTORY_FILE
    command = [sys.executable, "-m", "scenarios", "nemesis", "--minutes", "2", "--offline"]
    command += ["--seed", str(PAUSE_FIRST_SEED), "--faults", "pause,disk", "--fast"]
    with subprocess.Popen(
        [*command, "--report", str(report)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as nemesis:
        try:
            _wait_for_the_pause(history, nemesis)
            nemesis.send_signal(signal.SIGINT)
            out, err = nemesis.communicate(timeout=180)
        finally:
            if nemesis.poll() is None:
                nemesis.kill()
    assert nemesis.returncode == 1, out[-4000:] + err[-2000:]
    assert "interrupted" in err
    events = read_history(history)
    assert [e.event for e in events if e.number == 1] == ["fault", "heal"]
    assert next(e for e in events if e.event == "heal").detail.startswith("SIGCONT")
    pids = [e.pid for e in events if e.event == "start" and e.pid is not None]
    assert pids and not [p for p in pids if _alive(p)]
    assert subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True).stdout == b""
    mounts = Path("/proc/mounts").read_text()
    assert str(tmp_path) not in mounts
    folders = [
        f for p in pids for f in Path(tempfile.gettempdir()).glob(f"spark_app-session-{p}-*")
    ]
    assert folders == []


def _wait_for_the_pause(history: Path, nemesis: subprocess.Popen[str]) -> None:
    """Until the history holds the pause, applied and not yet healed."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        events = [e.event for e in read_history(history) if e.number == 1]
        if events == ["fault"]:
            return
        assert nemesis.poll() is None, "the nemesis ended before its pause"
        assert "heal" not in events, "the pause was healed before the test could stop it"
        time.sleep(0.2)
    raise AssertionError("no pause within 600 s")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
