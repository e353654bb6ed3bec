"""Run a command the way a user does, and stop it the way a user would when the test is stopped.

`subprocess.run` answers a timeout, or Ctrl-C on pytest, with SIGKILL a quarter of a second
later: the scenario runner then cannot stop what it started or remove the temporary folders of
the apps it killed (found after an interrupted CI run left `spark_app-session-*` in /tmp). Here
the command gets SIGTERM, which `python -m scenarios` unwinds like Ctrl-C, and time to clean up;
SIGKILL only if it has not ended by then.

Usage: `done = run_stoppable([sys.executable, "-m", "scenarios", "run", name], timeout=1200)`.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["run_stoppable", "CLEAN_UP_SEC"]

# A scenario's clean stop: its Spark apps (SIGTERM, up to ~20 s each), Kafka, its store.
CLEAN_UP_SEC = 90.0


def run_stoppable(
    command: Sequence[str],
    timeout: float,
    cwd: Path | None = None,
    stdin: int | None = None,
    clean_up_sec: float = CLEAN_UP_SEC,
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(command, capture_output=True, text=True, timeout=timeout)`, except that
    a timeout or an interrupt stops the command with SIGTERM and waits for it first."""
    with subprocess.Popen(
        list(command),
        cwd=cwd,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except BaseException:  # TimeoutExpired, KeyboardInterrupt, pytest's own stop
            _stop(process, clean_up_sec)
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _stop(process: subprocess.Popen[str], clean_up_sec: float) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.communicate(timeout=clean_up_sec)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
