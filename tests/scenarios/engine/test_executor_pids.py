"""executor_pids finds each executor's JVM, not a child caught between its fork and its exec
(the child's cmdline reads as the executor's until then: a run killed such a child once)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from scenarios.engine.observers.spark_events import executor_pids

# A stand-in executor: its cmdline names CoarseGrainedExecutorBackend, and it forks a child
# that never execs, so both read as executor 7.
FORKING = (
    "import os, sys, time\n"
    "child = os.fork()\n"
    "if child:\n"
    "    print(child, flush=True)\n"
    "time.sleep(30)\n"
)


def test_the_executor_is_the_parent_not_its_forked_child() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", FORKING, "CoarseGrainedExecutorBackend", "--executor-id", "7"],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert process.stdout is not None
        child = int(process.stdout.readline())
        assert child != process.pid
        time.sleep(0.2)
        assert executor_pids(session=process.pid) == {"7": process.pid}
    finally:
        os.killpg(process.pid, 9)
        process.wait()
