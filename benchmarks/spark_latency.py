"""Benchmark of the Spark app against the embedded broker on this machine.

Measures, with real processes (`python -m kafka_app broker`, `python -m spark_app`):
  1. end-to-end latency from send to the line in the output log at one message per second
     (p50, p99; target p50 <= 1.5 s, p99 <= 3 s),
  2. the duration of a 1-message batch, from the app's console lines (target <= 0.4 s),
  3. time from a restart to the first batch's output (target <= 12 s), with Spark's class
     archive in place, as a user's restarts are (benchmarks/class_archive.py),
  4. catch-up throughput for a backlog of 100k messages with the exactly-once sink: the summed
     durations of the batches that read it (target >= 20k messages/s). The app runs with a long
     trigger and has done a batch before the backlog is written, so the backlog is read by a
     warm app in one batch (as by a running app that fell behind); the cost of a cold start is
     measure 3.

Usage: `python benchmarks/spark_latency.py [--messages 60] [--backlog 100000] [--work-dir DIR]`
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from kafka import KafkaProducer

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.broker_process import topic_broker  # noqa: E402
from benchmarks.class_archive import ArchiveNote, wait_for_archive  # noqa: E402
from benchmarks.work_folder import work_folder  # noqa: E402
from checkpoint_stores import CheckpointPlace  # noqa: E402
from launch.commands import spark_command  # noqa: E402
from spark_app.lines.output_line import MessageLine, parse_line  # noqa: E402
from spark_app.settings import SparkAppSettings  # noqa: E402

_TOOK = re.compile(r"rows=(\d+) .*took (\d+) ms")
_BATCH = re.compile(r"\[(\d+|start), \d+\) rows=(\d+) .*took (\d+) ms")


def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise SystemExit(f"benchmark: timed out waiting for {what}")


class OutputWatcher(threading.Thread):
    """Tails the output log and notes when each value's line first appears."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.seen: dict[int, float] = {}
        self._stopping = (
            threading.Event()
        )  # not `_stop`: threading.Thread has its own, called after a fork

    def run(self) -> None:
        position = 0
        while not self._stopping.is_set():
            if self.path.exists():
                with open(self.path, encoding="utf-8") as f:
                    f.seek(position)
                    chunk = f.read()
                    position = f.tell()
                now = time.monotonic()
                for line in chunk.splitlines():
                    parsed = parse_line(line)
                    if isinstance(parsed, MessageLine) and parsed.value is not None:
                        self.seen.setdefault(parsed.value, now)
            time.sleep(0.01)

    def stop(self) -> None:
        self._stopping.set()


def start_app(bootstrap: str, work: Path, name: str, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            *spark_command(
                SparkAppSettings(
                    bootstrap_servers=bootstrap,
                    checkpoint=CheckpointPlace(folder=work / "checkpoints"),
                    log_dir=work / "log",
                )
            ),
            *options,
        ],
        cwd=REPO,
        stdout=open(work / f"{name}.out", "w"),
        stderr=open(work / f"{name}.err", "w"),
        text=True,
        start_new_session=True,
    )


def stop_app(app: subprocess.Popen[str]) -> None:
    app.send_signal(signal.SIGTERM)
    try:
        app.wait(timeout=120)
    finally:
        try:
            os.killpg(app.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Sender:
    """One producer counting the values it sends, 1, 2, 3, ...: value n sits at offset n - 1 of
    a one-partition topic, so each value is unique in every output log of a run."""

    def __init__(self, bootstrap: str) -> None:
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
        self.next_value = 1

    def send(self) -> tuple[int, float]:
        """Send the next value; (the value, when it was sent)."""
        value, self.next_value = self.next_value, self.next_value + 1
        sent = time.monotonic()
        self.producer.send("Experience", key=str(value).encode(), value=str(value).encode())
        self.producer.flush()
        return value, sent


def cpu_probe_sec() -> float:
    """Seconds a fixed single-threaded loop takes now: the load average misses a virtual machine
    that its host slows down (on this project's VM the same loop, ten times longer, took 1.25 to
    1.98 s within an hour, and Spark's start moved with it), so runs carry this beside them."""
    started = time.perf_counter()
    sum(range(10_000_000))
    return time.perf_counter() - started


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=60, help="messages at 1/s for latency")
    parser.add_argument("--backlog", type=int, default=100_000)
    parser.add_argument(
        "--backlog-trigger-sec",
        type=float,
        default=30.0,
        help="trigger of the catch-up run: long enough to write the backlog",
    )
    parser.add_argument("--work-dir", type=Path, default=None)
    args = parser.parse_args()
    with work_folder(args.work_dir, "spark-bench-") as work, topic_broker(work) as bootstrap:
        app = None
        try:
            producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=0)
            watcher = OutputWatcher(work / "log" / "streaming-output.log")
            watcher.start()

            def send(n: int) -> float:
                sent = time.monotonic()
                producer.send("Experience", key=str(n).encode(), value=str(n).encode())
                producer.flush()
                return sent

            archive = ArchiveNote.now()
            app = start_app(bootstrap, work, "run1")
            send(1)
            wait_for(lambda: 1 in watcher.seen, 600, "the first output")
            # 1. latency at one message per second
            sent_at: dict[int, float] = {}
            for n in range(2, args.messages + 2):
                sent_at[n] = send(n)
                time.sleep(max(0.0, sent_at[n] + 1.0 - time.monotonic()))
            last = args.messages + 1
            wait_for(lambda: last in watcher.seen, 60, "the last latency message")
            latencies = [watcher.seen[n] - sent_at[n] for n in sent_at]
            # 2. 1-message batch durations from the console
            one_row = [
                int(ms)
                for rows, ms in _TOOK.findall((work / "run1.out").read_text())
                if rows == "1"
            ]
            wait_for_archive()  # before stop_app, which ends the app's own writer
            stop_app(app)
            # 3. restart with one message waiting
            waiting = last + 1
            send(waiting)
            started = time.monotonic()
            app = start_app(bootstrap, work, "run2")
            wait_for(lambda: waiting in watcher.seen, 600, "the first batch after restart")
            restart_sec = watcher.seen[waiting] - started
            stop_app(app)
            # 4. catch up a backlog: warm up with one message, then write the backlog between two
            # triggers so that one batch reads it all
            warm_up = waiting + 1
            app = start_app(bootstrap, work, "run3", "--trigger-sec", str(args.backlog_trigger_sec))
            send(warm_up)
            wait_for(lambda: warm_up in watcher.seen, 600, "the warm-up message")
            first_backlog = warm_up + 1
            for n in range(first_backlog, first_backlog + args.backlog):
                producer.send("Experience", key=str(n).encode(), value=str(n).encode())
            producer.flush()
            final = first_backlog + args.backlog - 1
            wait_for(lambda: final in watcher.seen, 900, "the end of the backlog")

            def backlog_batches() -> list[tuple[int, int]]:
                # Only the batches reading the backlog (value n sits at offset n - 1).
                return [
                    (int(rows), int(ms))
                    for start, rows, ms in _BATCH.findall((work / "run3.out").read_text())
                    if start != "start" and int(start) >= first_backlog - 1
                ]

            wait_for(
                lambda: sum(r for r, _ in backlog_batches()) >= args.backlog, 60, "batch lines"
            )
            catch_up_sec = sum(ms for _, ms in backlog_batches()) / 1000
            stop_app(app)
            app = None
            watcher.stop()
            report = [
                "| measure | result | target |",
                "|---|---|---|",
                f"| latency p50 (1 msg/s, {len(latencies)} msgs) | "
                f"{statistics.median(latencies):.2f} s | <= 1.5 s |",
                f"| latency p99 | {percentile(latencies, 0.99):.2f} s | <= 3 s |",
                f"| 1-message batch (median of {len(one_row)}) | "
                f"{statistics.median(one_row) / 1000 if one_row else float('nan'):.2f} s | <= 0.4 s |",
                f"| restart to first batch output | {restart_sec:.1f} s | <= 12 s |",
                f"| catch-up, exactly-once sink ({args.backlog} msgs in {len(backlog_batches())} "
                f"batch(es) of {catch_up_sec:.1f} s) | "
                f"{args.backlog / catch_up_sec:,.0f} msg/s | >= 20,000 msg/s |",
                f"| machine | {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end | |",
                f"| class archive | {archive.state()} | |",
            ]
            print("\n".join(report))
            return 0
        finally:
            if app is not None:
                stop_app(app)


if __name__ == "__main__":
    sys.exit(main())
