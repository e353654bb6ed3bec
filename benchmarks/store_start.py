"""Each checkpoint store's start time, memory and jar sizes, in one run: the figures in
BENCHMARKS.md's "Checkpoint stores".

Each store starts as a user starts it, `python -m checkpoint_stores hdfs|s3`, with its jars
already in the cache (fetch them first: `python -m checkpoint_stores.jars hdfs` and `s3`).
"start" is the store's own figure, from the JVM's start to its first answer (hdfs: a live
DataNode and safe mode off; s3: an HTTP answer for the bucket); "to ready line" adds the
Python wrapper's start and the cache check. Memory is the JVM's resident set once ready
(VmRSS) and its peak so far (VmHWM), plus the Python wrapper's. Stop is SIGTERM to the wrapper
until the JVM is gone. Jar sizes are read from the cache's manifests: nothing is fetched.

Usage: `uv run python benchmarks/store_start.py [--rounds 3]`
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.broker_process import memory_kb  # noqa: E402
from checkpoint_stores.cli import parse_ready_line, store_command  # noqa: E402
from checkpoint_stores.jars import CLIENTS, SERVERS  # noqa: E402
from launch.ports import free_port  # noqa: E402
from launch.process import ManagedProcess  # noqa: E402
from launch.waiting import wait_until  # noqa: E402
from maven_jars.cache import MANIFEST, entry_dir  # noqa: E402


def jar_sizes(coordinate: str) -> str:
    """`N jars, M MB` of a cache entry, from its manifest; "not fetched" without one."""
    name = coordinate.split(":", 1)[1].replace(":", "-")
    try:
        jars = json.loads((entry_dir(name) / MANIFEST).read_text())["jars"]
    except OSError:
        return "not fetched"
    return f"{len(jars)} jars, {sum(j['size'] for j in jars) / 1e6:.0f} MB"


def start_store(store: str, folder: Path) -> tuple[ManagedProcess, int, dict[str, float]]:
    """The store started as a user starts it: its process, its JVM's pid, and the figures once
    it answered (start, to the ready line, memory)."""
    argv = store_command(store, free_port(), folder / "data", folder / "log")
    began = time.monotonic()
    process = ManagedProcess(
        store,
        argv,
        output=folder / "out.log",
        cwd=_REPO,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    ).start()
    try:
        process.wait_for(parse_ready_line, timeout=300, what="the ready line")
    except BaseException:
        process.stop()
        raise
    to_line = time.monotonic() - began
    ready = parse_ready_line(process.output())
    assert ready is not None
    jvm = int(process.output().split("JVM pid ", 1)[1].split(",", 1)[0])
    return (
        process,
        jvm,
        {
            "start_sec": ready[2],
            "to_ready_line_sec": to_line,
            "jvm_rss_mb": memory_kb(jvm, "VmRSS") / 1024,
            "jvm_peak_mb": memory_kb(jvm, "VmHWM") / 1024,
            "wrapper_rss_mb": memory_kb(process.pid or 0, "VmRSS") / 1024,
        },
    )


def stop_store(process: ManagedProcess, jvm: int) -> float:
    """SIGTERM until the JVM is gone; the seconds it took."""
    stopping = time.monotonic()
    try:
        process.terminate(timeout=60)
        wait_until(lambda: not Path(f"/proc/{jvm}").exists(), timeout=60, what="the JVM to end")
        return time.monotonic() - stopping
    finally:
        process.stop()


def one_start(store: str, folder: Path) -> dict[str, float]:
    process, jvm, figures = start_store(store, folder)
    figures["stop_sec"] = stop_store(process, jvm)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for store in ("hdfs", "s3"):
        print(
            f"{store}: server {SERVERS[store]}: {jar_sizes(SERVERS[store])}"
            + (
                f"; Spark's client {CLIENTS[store]}: {jar_sizes(CLIENTS[store])}"
                if store in CLIENTS
                else "; Spark's client: PySpark's own Hadoop client"
            )
        )
        with tempfile.TemporaryDirectory(prefix=f"store-bench-{store}-", dir=_REPO / "log") as tmp:
            rounds = [one_start(store, Path(tmp) / str(n)) for n in range(args.rounds)]
        for key in rounds[0]:
            values = [r[key] for r in rounds]
            print(
                f"  {key:18} median {statistics.median(values):7.1f}   "
                f"(runs: {', '.join(f'{v:.1f}' for v in values)})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
