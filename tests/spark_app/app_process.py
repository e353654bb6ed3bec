"""`python -m spark_app` as a real child process for end-to-end tests: start, kill -9, stop.

The app runs in its own session (process group), so `kill9` takes the Python driver and its
JVM down together, as an out-of-memory kill or a pulled plug would.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

__all__ = ["AppProcess", "wait_until", "REPO_ROOT"]

REPO_ROOT = Path(__file__).resolve().parents[2]


def wait_until(condition: Callable[[], bool], timeout: float, what: str,
               app: "AppProcess | None" = None) -> None:
    """Poll `condition` until it holds; fail naming `what` (and the app's output) otherwise."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if app is not None and app.returncode() is not None:
            raise AssertionError(f"app exited ({app.returncode()}) while waiting for {what}:\n"
                                 f"{app.output()}")
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}"
                         + (f":\n{app.output()}" if app else ""))


class AppProcess:
    """One run of the Spark app; output goes to files in `run_dir`."""

    _runs = 0

    def __init__(self, run_dir: Path, args: list[str]) -> None:
        AppProcess._runs += 1
        self.run_dir = run_dir
        self.stdout_path = run_dir / f"app-{AppProcess._runs}.out"
        self.stderr_path = run_dir / f"app-{AppProcess._runs}.err"
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "AppProcess":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.kill9()

    def start(self) -> "AppProcess":
        if self.proc is None:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            with open(self.stdout_path, "wb") as out, open(self.stderr_path, "wb") as err:
                self.proc = subprocess.Popen([sys.executable, "-m", "spark_app", *self.args],
                                             cwd=REPO_ROOT, stdout=out, stderr=err,
                                             start_new_session=True)
        return self

    def wait_streaming(self, timeout: float) -> None:
        """Until the app says its query runs. A SIGTERM before that finds Python still importing,
        with the default action (exit -15) instead of the app's clean stop."""
        wait_until(lambda: self.stdout_path.exists() and "Streaming " in self.stdout_path.read_text(
            errors="replace"), timeout, "the query to start", self)

    def returncode(self) -> int | None:
        return self.proc.poll() if self.proc else None

    def output(self) -> str:
        read = lambda p: p.read_text(errors="replace") if p.exists() else ""  # noqa: E731
        return f"--- stdout\n{read(self.stdout_path)[-3000:]}\n--- stderr\n{read(self.stderr_path)[-3000:]}"

    def stderr_lines(self) -> list[str]:
        return self.stderr_path.read_text(errors="replace").splitlines()

    def kill9(self) -> None:
        """SIGKILL the whole process group (driver and JVM); idempotent."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=30)
        self._reap_group()

    def _reap_group(self) -> None:
        # The JVM may outlive a driver that exited on its own (crash or error): make sure.
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def terminate(self, timeout: float = 120) -> int:
        """SIGTERM to the driver only, as `kill PID` would; returns the exit code."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"app did not exit within {timeout:.0f}s:\n{self.output()}")
        self._reap_group()
        return code
