"""Child processes for the launch tests: a parent with a long-lived child, one that ignores
SIGTERM, an echo; and whether a pid is still alive.

Usage: `child = child_pid(group.start("parent", [sys.executable, "-c", PARENT_WITH_CHILD]))`
"""

from __future__ import annotations

import os

from launch.process import ManagedProcess
from launch.waiting import wait_until

__all__ = ["ECHO", "IGNORES_SIGTERM", "PARENT_WITH_CHILD", "alive", "child_pid", "gone"]

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


def child_pid(process: ManagedProcess) -> int:
    match = process.wait_for(r"child (\d+)", timeout=20)
    return int(match.group(1))


def gone(pids: list[int]) -> bool:
    return wait_until(lambda: not any(alive(p) for p in pids), timeout=10, what="processes to end")
