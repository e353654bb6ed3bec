"""Our Kafka source against Spark's connector: first start, restart after kill -9, 1-message batch.

One run measures both sources on one embedded broker, with real processes (`python -m kafka_app
broker`, `python -m spark_app --source python|spark-kafka`), each source with its own
checkpoint and output log:
  1. first start: a fresh checkpoint, one message waiting, from starting the process to that
     message's line in the output log (the connector's jars are fetched before, so this is
     "first start after the jars are cached"),
  2. the 1-message batch: send to output line at one message per second (median), and the
     batch's own duration from the console (median `took` of 1-row batches),
  3. restart after kill -9 of the app's whole process group (driver and JVM), one message
     waiting, to that message's line (median of --restarts), with Spark's class archive in
     place, as a user's restarts are (benchmarks/class_archive.py; the footer says whether the
     first start had it),
  4. catch-up of a backlog (--backlog, 100k): a running app with a 30 s trigger gets the backlog
     between two triggers, so one warm batch reads it all; the summed `took` of the batches that
     read it, as benchmarks/spark_latency.py measures ours.
It prints a table with both sources and the ratio connector / ours.

Usage: `python benchmarks/source_restart.py [--messages 20] [--restarts 2] [--backlog 100000]
[--work-dir DIR]`
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script: the project's packages are beside this folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

from spark_latency import _BATCH, _TOOK, OutputWatcher, Sender, cpu_probe_sec, stop_app, wait_for  # noqa: E402

from benchmarks.broker_process import topic_broker  # noqa: E402
from benchmarks.class_archive import ArchiveNote, wait_for_archive  # noqa: E402
from benchmarks.work_folder import work_folder  # noqa: E402
from checkpoint_stores import CheckpointPlace  # noqa: E402
from launch.commands import spark_command  # noqa: E402
from spark_app.runtime.connector_jars import connector_jars  # noqa: E402
from spark_app.runtime.spark_version import installed_spark_version  # noqa: E402
from spark_app.settings import SparkAppSettings  # noqa: E402

SOURCES = ("python", "spark-kafka")
_WAIT_SEC = 600


@dataclass
class Figures:
    first_start: float = 0.0
    latencies: list[float] = field(default_factory=list)
    one_row_ms: list[int] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)
    catch_up_sec: float = 0.0


class Bench(Sender):
    """One broker, one producer, a counter of values sent; apps started per source."""

    def __init__(self, work: Path, bootstrap: str) -> None:
        super().__init__(bootstrap)
        self.work, self.bootstrap = work, bootstrap
        self.starts: dict[str, int] = {}  # source -> the offset its fresh checkpoint starts at

    def settings(self, source: str, trigger_sec: float) -> SparkAppSettings:
        """The app's settings for the folder `source`; benchmarks/state_compare.py overrides it
        to run one source with several state stores."""
        folder = self.work / source
        # A fresh checkpoint starts at the topic's end when its source's run began (value n sits
        # at offset n - 1): otherwise the second source's first start would first read all that
        # the first one was sent, the catch-up's backlog included.
        start = self.starts.setdefault(source, self.next_value - 1)
        return SparkAppSettings(
            bootstrap_servers=self.bootstrap,
            source=source,
            checkpoint=CheckpointPlace(folder=folder / "checkpoints"),
            log_dir=folder / "log",
            trigger_sec=trigger_sec,
            starting_offsets=json.dumps({"Experience": {"0": start}}),
        )

    def start(self, source: str, name: str, trigger_sec: float = 1.0) -> subprocess.Popen[str]:
        folder = self.work / source
        settings = self.settings(source, trigger_sec)
        return subprocess.Popen(
            spark_command(settings),
            cwd=REPO,
            stdout=open(folder / f"{name}.out", "w"),
            stderr=open(folder / f"{name}.err", "w"),
            text=True,
            start_new_session=True,
        )

    def measure(self, source: str, messages: int, restarts: int, backlog: int) -> Figures:
        folder = self.work / source
        folder.mkdir(parents=True, exist_ok=True)
        watcher = OutputWatcher(folder / "log" / "streaming-output.log")
        watcher.start()
        figures = Figures()
        try:
            self.starts[source] = self.next_value - 1
            value, _ = self.send()
            started = time.monotonic()
            app = self.start(source, "run0")
            wait_for(
                lambda value=value: value in watcher.seen, _WAIT_SEC, f"{source}: first output"
            )
            figures.first_start = watcher.seen[value] - started
            for _ in range(messages):
                value, sent = self.send()
                wait_for(
                    lambda value=value: value in watcher.seen, 60, f"{source}: message {value}"
                )
                figures.latencies.append(watcher.seen[value] - sent)
                time.sleep(max(0.0, sent + 1.0 - time.monotonic()))
            wait_for_archive()  # the app's writer is killed with it below: restarts need it
            figures.one_row_ms = [
                int(ms)
                for rows, ms in _TOOK.findall((folder / "run0.out").read_text())
                if rows == "1"
            ]
            for attempt in range(1, restarts + 1):
                os.killpg(app.pid, signal.SIGKILL)  # kill -9 of driver and JVM together
                app.wait()
                value, _ = self.send()
                started = time.monotonic()
                app = self.start(source, f"run{attempt}")
                wait_for(
                    lambda value=value: value in watcher.seen,
                    _WAIT_SEC,
                    f"{source}: restart {attempt}",
                )
                figures.restarts.append(watcher.seen[value] - started)
            stop_app(app)
            figures.catch_up_sec = self.catch_up(source, watcher, backlog)
        finally:
            watcher.stop()
        return figures

    def catch_up(self, source: str, watcher: OutputWatcher, backlog: int) -> float:
        """Seconds of batch time to read `backlog` messages written between two triggers."""
        app = self.start(source, "catch-up", trigger_sec=30.0)
        try:
            warm_up, _ = self.send()
            wait_for(lambda: warm_up in watcher.seen, _WAIT_SEC, f"{source}: warm-up message")
            first = self.next_value
            for n in range(first, first + backlog):
                self.producer.send("Experience", key=str(n).encode(), value=str(n).encode())
            self.producer.flush()
            self.next_value = first + backlog
            wait_for(lambda: first + backlog - 1 in watcher.seen, 900, f"{source}: the backlog")
            out = self.work / source / "catch-up.out"

            def backlog_batches() -> list[tuple[int, int]]:
                # Value n sits at offset n - 1: the batches starting at or after the backlog.
                return [
                    (int(rows), int(ms))
                    for start, rows, ms in _BATCH.findall(out.read_text())
                    if start != "start" and int(start) >= first - 1
                ]

            wait_for(lambda: sum(r for r, _ in backlog_batches()) >= backlog, 60, "batch lines")
            return sum(ms for _, ms in backlog_batches()) / 1000
        finally:
            stop_app(app)


def table(
    results: dict[str, Figures], backlog: int, probe_at_start: float, archive: ArchiveNote
) -> str:
    ours, theirs = results["python"], results["spark-kafka"]

    def row(what: str, a: float, b: float, unit: str = "s") -> str:
        return f"| {what} | {a:.2f} {unit} | {b:.2f} {unit} | {b / a:.2f} |"

    lines = [
        "| measure | ours (`--source python`) | connector (`--source spark-kafka`) | "
        "connector / ours |",
        "|---|---|---|---|",
        row("first start, jars cached, to first output", ours.first_start, theirs.first_start),
        row(
            f"restart after kill -9 to first output (median of {len(ours.restarts)})",
            statistics.median(ours.restarts),
            statistics.median(theirs.restarts),
        ),
        row(
            f"1-message batch, send to output line (median of {len(ours.latencies)})",
            statistics.median(ours.latencies),
            statistics.median(theirs.latencies),
        ),
        row(
            "1-message batch, its duration (median `took`)",
            statistics.median(ours.one_row_ms) / 1000,
            statistics.median(theirs.one_row_ms) / 1000,
        ),
        row(
            f"catch-up of {backlog:,} messages, batch time", ours.catch_up_sec, theirs.catch_up_sec
        ),
        f"| catch-up rate | {backlog / ours.catch_up_sec:,.0f} msg/s | "
        f"{backlog / theirs.catch_up_sec:,.0f} msg/s | "
        f"{ours.catch_up_sec / theirs.catch_up_sec:.2f} |",
    ]
    restarts = ", ".join(
        f"{s}: " + " / ".join(f"{t:.1f}" for t in results[s].restarts) for s in SOURCES
    )
    lines.append(
        f"\nrestarts one by one (s): {restarts}; {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f} at the end; a fixed CPU loop took {probe_at_start:.2f} s "
        f"at the start and {cpu_probe_sec():.2f} s at the end (the machine's speed); "
        f"PySpark {installed_spark_version()}; {archive.footer()}"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20, help="1-message batches, one a second")
    parser.add_argument("--restarts", type=int, default=2, help="kill -9 and restart, per source")
    parser.add_argument("--backlog", type=int, default=100_000, help="messages to catch up")
    parser.add_argument("--work-dir", type=Path, default=None)
    args = parser.parse_args()
    with work_folder(args.work_dir, "source-bench-") as work:
        connector_jars(installed_spark_version())  # cached before any clock starts
        with topic_broker(work) as bootstrap:
            bench = Bench(work, bootstrap)
            probe_at_start = cpu_probe_sec()
            archive = ArchiveNote.now()
            results = {
                source: bench.measure(source, args.messages, args.restarts, args.backlog)
                for source in SOURCES
            }
            print(table(results, args.backlog, probe_at_start, archive))
            return 0


if __name__ == "__main__":
    sys.exit(main())
