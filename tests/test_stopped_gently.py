"""run_stoppable: a command stopped by a timeout or an interrupt gets SIGTERM and time to clean
up, as `python -m scenarios` needs to stop its processes and remove their folders."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.stopped_gently import run_stoppable

# A child that, on SIGTERM, takes half a second to "clean up" and writes a file saying so.
_CHILD = """
import signal, sys, time
def stop(*_):
    time.sleep(0.5)
    open(sys.argv[1], "w").write("cleaned up")
    sys.exit(3)
signal.signal(signal.SIGTERM, stop)
print("started", flush=True)
time.sleep(60)
"""


def test_a_finished_command_is_returned_like_subprocess_run() -> None:
    done = run_stoppable(
        [
            sys.executable,
            "-c",
            "import sys; print('out'); print('err', file=sys.stderr); sys.exit(4)",
        ],
        timeout=30,
    )
    assert (done.returncode, done.stdout, done.stderr) == (4, "out\n", "err\n")


def test_a_timeout_stops_the_command_with_sigterm_and_waits_for_its_clean_up(
    tmp_path: Path,
) -> None:
    mark = tmp_path / "mark"
    with pytest.raises(subprocess.TimeoutExpired):
        run_stoppable([sys.executable, "-c", _CHILD, str(mark)], timeout=1)
    assert mark.read_text() == "cleaned up"


def test_an_interrupt_stops_the_command_with_sigterm_and_waits_for_its_clean_up(
    tmp_path: Path,
) -> None:
    mark = tmp_path / "mark"
    main = threading.main_thread().ident
    assert main is not None
    threading.Timer(1.0, signal.pthread_kill, (main, signal.SIGINT)).start()  # Ctrl-C on pytest
    with pytest.raises(KeyboardInterrupt):
        run_stoppable([sys.executable, "-c", _CHILD, str(mark)], timeout=30)
    assert mark.read_text() == "cleaned up"


def test_a_command_that_ignores_sigterm_is_killed_after_its_clean_up_time(tmp_path: Path) -> None:
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    with pytest.raises(subprocess.TimeoutExpired):
        run_stoppable([sys.executable, "-c", stubborn], timeout=0.5, clean_up_sec=0.5)
