"""The embedded broker as a child process of a benchmark, and the wait for it to listen.

Usage:
    with broker_process(port, prefix="fetch-memory-") as process:
        ...  # `python -m kafka_app broker` listens on 127.0.0.1:port until the block ends
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent
READY_TIMEOUT_SEC = 30.0


@contextmanager
def broker_process(port: int, prefix: str,
                   extra_args: Sequence[str] = ()) -> Iterator[subprocess.Popen[bytes]]:
    """`python -m kafka_app broker` on `port`, data and log in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        command = [sys.executable, "-m", "kafka_app", "broker", "--port", str(port),
                   "--data-dir", f"{folder}/data", "--log-dir", f"{folder}/log", *extra_args]
        process = subprocess.Popen(command, cwd=_REPO, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port, process)
            yield process
        finally:
            process.terminate()
            process.wait(30)


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    """Return once 127.0.0.1:`port` accepts; raise if `process` exits or the deadline passes."""
    deadline = time.monotonic() + READY_TIMEOUT_SEC
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the broker exited with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling the port: nothing to wait on but the next try
    raise RuntimeError(f"the broker did not listen on port {port} within {READY_TIMEOUT_SEC} s")
