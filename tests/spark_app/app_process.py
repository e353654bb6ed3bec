"""`python -m spark_app` as a real child process for end-to-end tests: start, kill -9, stop.

The scenarios' ManagedProcess does the work (its own process group, so a kill -9 takes the
Python driver and its JVM down together, as an out-of-memory kill or a pulled plug would);
this adds the app's command line, numbered output files, and the waits the tests need.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from launch.errors import WaitTimeout
from launch.process import ManagedProcess
from launch.waiting import wait_until as _poll

__all__ = ["AppProcess", "wait_until", "REPO_ROOT"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def wait_until(
    condition: Callable[[], bool], timeout: float, what: str, app: AppProcess | None = None
) -> None:
    """Poll `condition` until it holds; fail naming `what` (and the app's output) otherwise."""

    def check() -> bool:
        if condition():
            return True
        if app is not None and not app.running:
            raise AssertionError(
                f"app exited ({app.returncode}) while waiting for {what}:\n{app.output_tail()}"
            )
        return False

    try:
        _poll(check, timeout=timeout, what=what)
    except WaitTimeout:
        raise AssertionError(
            f"timed out after {timeout:.0f}s waiting for {what}"
            + (f":\n{app.output_tail()}" if app else "")
        ) from None


class AppProcess(ManagedProcess):
    """One run of the Spark app; its stdout and stderr go to `run_dir/app-N.out`."""

    _runs = 0

    def __init__(self, run_dir: Path, args: list[str]) -> None:
        AppProcess._runs += 1
        super().__init__(
            f"app-{AppProcess._runs}",
            [sys.executable, "-m", "spark_app", *args],
            output=run_dir / f"app-{AppProcess._runs}.out",
            cwd=REPO_ROOT,
        )

    def wait_streaming(self, timeout: float) -> None:
        """Until the app says its query runs. A SIGTERM before that finds Python still importing,
        with the default action (exit -15) instead of the app's clean stop."""
        wait_until(lambda: "Streaming " in self.output(), timeout, "the query to start", self)

    def output_tail(self) -> str:
        return self.output()[-6000:]

    def lines(self) -> list[str]:
        """Its output's non-empty lines; the app's one-line error, if any, is the last."""
        return [line for line in self.output().splitlines() if line.strip()]

    def terminate(self, timeout: float = 120.0) -> int:
        """SIGTERM to the driver only, as `kill PID` would; returns the exit code."""
        code = super().terminate(timeout)
        return -1 if code is None else code

    def wait(self, timeout: float) -> int:
        try:
            return self.wait_exit(timeout)
        except WaitTimeout:
            raise AssertionError(
                f"app did not exit within {timeout:.0f}s:\n{self.output_tail()}"
            ) from None
