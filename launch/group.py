"""Every process a run starts, owned together and stopped together, newest first.

A `ProcessGroup` starts each `ManagedProcess` (launch/process.py) with its console in one folder
and kills what is still alive when the `with` block ends, on success, on failure and on Ctrl-C
alike. A second Ctrl-C, SIGTERM or SIGHUP while it stops them waits until it is done.

Usage:
    with ProcessGroup(run_dir / "processes") as group:
        spark = group.start("spark", spark_command(settings))   # console: processes/spark.out
        spark.wait_for(r"Count = 5", timeout=60)
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from launch.errors import ProcessError
from launch.process import CONSOLE_SUFFIX, ManagedProcess

__all__ = ["ProcessGroup"]


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP back while cleaning up, so an impatient second signal (or the
    copy `timeout` and `uv run` both deliver) cannot leave processes behind; delivered after.

    The signals are noted by a stand-in handler rather than blocked: a signal sent to the
    process can land on any thread that does not block it (kafka-python and Spark start their
    own), so blocking it in the main thread alone does not hold it back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {
        number: signal.signal(number, lambda number, _frame: arrived.append(number))
        for number in held
    }
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(arrived):
            signal.raise_signal(number)


class ProcessGroup:
    """Owns every process a run starts; stops them all on exit, newest first."""

    def __init__(
        self, output_dir: Path, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
    ) -> None:
        self.output_dir = output_dir
        self.cwd = cwd
        self.env = env
        self.processes: list[ManagedProcess] = []

    def start(
        self, name: str, argv: Sequence[str], *, output_name: str | None = None
    ) -> ManagedProcess:
        """Start a process whose output goes to `<output_dir>/<output_name or name>.out`
        (CONSOLE_SUFFIX)."""
        process = ManagedProcess(
            name,
            argv,
            output=self.output_dir / f"{output_name or name}{CONSOLE_SUFFIX}",
            cwd=self.cwd,
            env=self.env,
        )
        self.processes.append(process)
        return process.start()

    def stop(self) -> None:
        """Stop every process; a second Ctrl-C or SIGTERM meanwhile waits until this is done."""
        errors: list[ProcessError] = []
        with _signals_held():
            for process in reversed(self.processes):
                try:
                    process.stop()
                except ProcessError as error:
                    errors.append(error)
        if errors:
            raise errors[0]

    def __enter__(self) -> ProcessGroup:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
