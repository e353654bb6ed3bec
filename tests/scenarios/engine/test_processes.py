"""Managed processes: output captured, waits bounded, and nothing left behind, even on failure."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from scenarios.engine.processes import ProcessGroup
from scenarios.engine.waiting import wait_until
from scenarios.errors import ProcessError, WaitTimeout

# A parent that starts a long-lived child (as the PySpark driver starts its JVM) and prints its pid.
PARENT_WITH_CHILD = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("child", child.pid, flush=True)
time.sleep(600)
"""

IGNORES_SIGTERM = """
import signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(600)
"""

ECHO = """
import sys
for line in sys.stdin:
    print("got:" + line.strip(), flush=True)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers signal 0; it is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def child_pid(process) -> int:  # type: ignore[no-untyped-def]
    match = process.wait_for(r"child (\d+)", timeout=20)
    return int(match.group(1))


def gone(pids: list[int]) -> bool:
    return wait_until(lambda: not any(alive(p) for p in pids), timeout=10, what="processes to end")


def test_kill_reaches_the_child_of_the_process(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        parent = group.start("parent", [sys.executable, "-c", PARENT_WITH_CHILD])
        child = child_pid(parent)
        assert alive(child)
        parent.kill()
        assert gone([parent.pid, child])  # type: ignore[list-item]


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


def test_terminate_escalates_to_kill_after_the_timeout(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        stubborn = group.start("stubborn", [sys.executable, "-c", IGNORES_SIGTERM])
        stubborn.wait_for("ready", timeout=20)
        code = stubborn.terminate(timeout=0.5)
        assert code == -9 and not stubborn.running


def test_terminate_lets_a_process_exit_by_itself(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        sleeper = group.start("sleeper", [sys.executable, "-c", "import time; time.sleep(600)"])
        assert sleeper.terminate(timeout=10) == -15


def test_lines_to_stdin_and_output_since_a_mark(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        echo = group.start("echo", [sys.executable, "-c", ECHO])
        echo.send_line("first")
        echo.wait_for("got:first", timeout=20)
        mark = echo.mark()
        echo.send_line("")
        echo.wait_for(r"got:\n", since=mark, timeout=20)
        assert "got:first" not in echo.output(since=mark)
        assert (tmp_path / "echo.out").read_text().startswith("got:first")


def test_wait_for_fails_fast_when_the_process_ends(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        quitter = group.start(
            "quitter", [sys.executable, "-c", "print('bye'); raise SystemExit(3)"]
        )
        with pytest.raises(ProcessError, match="(?s)exited with code 3.*bye"):
            quitter.wait_for("never printed", timeout=20)
        assert quitter.wait_exit(timeout=5) == 3


def test_wait_for_times_out_with_what_was_awaited(tmp_path: Path) -> None:
    progress: list[float] = []
    with ProcessGroup(tmp_path) as group:
        quiet = group.start("quiet", [sys.executable, "-c", "import time; time.sleep(600)"])
        with pytest.raises(WaitTimeout, match="quiet: the magic word"):
            quiet.wait_for(
                "magic",
                timeout=1.0,
                what="the magic word",
                progress=lambda what, s: progress.append(s),
            )


def test_start_failure_is_a_process_error(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        with pytest.raises(ProcessError, match="cannot start"):
            group.start("nothing", [str(tmp_path / "no-such-program")])


def test_cleanup_holds_back_a_second_signal(tmp_path: Path) -> None:
    import signal

    # A second thread, as kafka-python and Spark start: the kernel may hand it the signal.
    import threading

    from scenarios.engine.processes import _signals_held

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
sys.path.insert(0, {str(Path(__file__).resolve().parents[3])!r})
from scenarios.engine.processes import ProcessGroup
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


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting for a reaper."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_child_does_not_outlive_a_parent_killed_with_minus_9(tmp_path: Path) -> None:
    """A demo or a scenario run that dies without its cleanup (kill -9, an exception in it)
    takes its apps along: each sits in its own session, out of the terminal's reach."""
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        sys.path.insert(0, {str(Path.cwd())!r})
        from scenarios.engine.processes import ProcessGroup
        child = ProcessGroup(Path({str(tmp_path)!r})).start(
            "sleeper", [sys.executable, "-c", "import time; time.sleep(120)"])
        print(child.pid, flush=True)
        time.sleep(120)
        """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait(timeout=10)
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(child), f"pid {child} outlived its parent"
