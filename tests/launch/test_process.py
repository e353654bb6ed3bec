"""One managed process: output captured, waits bounded, kill -9 reaching its children, and no
child outliving a parent killed without its cleanup."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from launch.errors import ProcessError, WaitTimeout
from launch.group import ProcessGroup
from tests.launch.process_helpers import (
    ECHO,
    IGNORES_SIGTERM,
    PARENT_WITH_CHILD,
    alive,
    child_pid,
    gone,
)


def test_kill_reaches_the_child_of_the_process(tmp_path: Path) -> None:
    with ProcessGroup(tmp_path) as group:
        parent = group.start("parent", [sys.executable, "-c", PARENT_WITH_CHILD])
        child = child_pid(parent)
        assert alive(child)
        parent.kill()
        assert gone([parent.pid, child])  # type: ignore[list-item]


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
        from launch.group import ProcessGroup
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
