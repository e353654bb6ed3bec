"""A process group: everything stopped when its block ends, on failure, on Ctrl-C, and when a
second signal arrives while it cleans up."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from launch.group import ProcessGroup
from tests.launch.process_helpers import PARENT_WITH_CHILD, child_pid, gone


def test_group_cleans_up_when_the_block_fails(tmp_path: Path) -> None:
    pids: list[int] = []
    with pytest.raises(RuntimeError, match="step broke"):
        with ProcessGroup(tmp_path) as group:
            for name in ("one", "two"):
                process = group.start(name, [sys.executable, "-c", PARENT_WITH_CHILD])
                pids += [process.pid, child_pid(process)]  # type: ignore[list-item]
            raise RuntimeError("step broke")
    assert gone(pids)


def test_group_cleans_up_on_ctrl_c(tmp_path: Path) -> None:
    pids: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        with ProcessGroup(tmp_path) as group:
            process = group.start("parent", [sys.executable, "-c", PARENT_WITH_CHILD])
            pids += [process.pid, child_pid(process)]  # type: ignore[list-item]
            raise KeyboardInterrupt
    assert gone(pids)


def test_cleanup_holds_back_a_second_signal(tmp_path: Path) -> None:
    import signal

    # A second thread, as kafka-python and Spark start: the kernel may hand it the signal.
    import threading

    from launch.group import _signals_held

    done = threading.Event()
    bystander = threading.Thread(target=done.wait, daemon=True)
    bystander.start()
    seen: list[str] = []
    previous = signal.signal(signal.SIGTERM, lambda *_: seen.append("delivered"))
    try:
        with _signals_held():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGTERM)
            seen.append("cleanup finished")
        assert seen == ["cleanup finished", "delivered"]
    finally:
        signal.signal(signal.SIGTERM, previous)
        done.set()


def test_a_run_killed_by_timeout_leaves_nothing_behind(tmp_path: Path) -> None:
    # `timeout` signals its whole process group and `uv run` forwards the signal again: the
    # scenario process sees SIGTERM twice while it cleans up.
    import signal
    import subprocess
    import time

    script = f"""
import signal, sys, time
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from launch.group import ProcessGroup
def interrupt(*_):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt
signal.signal(signal.SIGTERM, interrupt)
try:
    with ProcessGroup(Path({str(tmp_path)!r})) as group:
        p = group.start("parent", [sys.executable, "-c", {PARENT_WITH_CHILD!r}])
        m = p.wait_for(r"child (\\d+)", timeout=20)
        print(p.pid, m.group(1), flush=True)
        time.sleep(600)
except KeyboardInterrupt:
    print("cleaned", flush=True)
"""
    runner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert runner.stdout is not None
    pids = [int(p) for p in runner.stdout.readline().split()]
    runner.send_signal(signal.SIGTERM)
    time.sleep(0.05)  # the second copy arrives while the first is being handled
    runner.send_signal(signal.SIGTERM)
    out, _ = runner.communicate(timeout=30)
    assert "cleaned" in out
    assert gone(pids)
