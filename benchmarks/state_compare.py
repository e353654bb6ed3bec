"""Each state store and counter side by side: 1-message batch, restart, catch-up, RSS, checkpoint size.

One run measures four configurations of the Spark app, one after the other, on one embedded
broker, with real processes (`python -m kafka_app broker`, `python -m spark_app`), each with its
own checkpoint and output log (issue 23 item 5):
  - `hdfs`: `--state-store hdfs` with applyInPandasWithState, the app's default; the ratios are
    against it,
  - `rocksdb`: `--state-store rocksdb`,
  - `rocksdb-changelog`: `--state-store rocksdb --changelog-checkpointing`,
  - `tws`: `--counter transform-with-state --state-store rocksdb` (transformWithStateInPandas
    needs RocksDB; without changelog checkpointing, as `rocksdb`).
Every configuration reads with Spark's connector (`--source spark-kafka`), the app's default and
what production runs; `--source python` measures ours instead. Each fresh checkpoint starts at
the topic's end offset of that moment (`--starting-offsets` as JSON), so no configuration reads
what the ones before it were sent.

First an unmeasured warm-up: the first configuration's app on a throwaway checkpoint, to its
first output line, so that the first configuration measured, the ratios' base, does not alone
pay for cold disk caches (in a tiny run without it, at load 8, the first configuration's first
start took 43 s against 16 to 21 s for the others; load or caches, not told apart), nor alone
start without Spark's class archive: the warm-up waits until it is written
(benchmarks/class_archive.py), so every timed start has it, as a user's second start does. Then per
configuration, with benchmarks/source_restart.py's Bench (its phases, as there):
  1. first start on a fresh checkpoint with one message waiting, to its output line,
  2. --messages 1-message batches at one a second: the median of their `took`, and send to
     output line,
  3. --restarts times a kill -9 of the app's process group (driver Python and JVM) and a restart
     with one message waiting, to its output line (median),
  4. catch-up of --backlog messages written between two triggers of a warm app (30 s trigger):
     the summed `took` of the batches that read them,
  5. a soak on a second, fresh checkpoint: --batches batches at --trigger-sec with a producer
     sending --rate messages a second (fast enough that every trigger finds data and is a
     batch), then a clean stop and one walk of the checkpoint folder (size and file count, all
     of it and `state/` alone, Hadoop's .crc files included).
While any of it runs, the app's processes are sampled every --sample-sec s: /proc/<pid>/status
VmRSS of every process below the app's (the driver Python), read by kind: the driver JVM (in
local mode the executors are threads of it), the driver Python, and Spark's Python workers
summed (the daemon and its forks). The tree, not the process group: Spark's Python daemon puts
itself in a group of its own (`os.setpgid(0, 0)` in pyspark/daemon.py), so the app's group does
not hold the workers. The table gives each kind's maximum over the configuration's run, and the
maximum of all of them at one sample.

It prints one markdown table, one row per measure, one column per configuration with a ratio
column against hdfs, then the CPU count and load average.

Usage:
    uv run python benchmarks/state_compare.py   # --messages 20 --restarts 2 --backlog 100000 --batches 1000
    uv run python benchmarks/state_compare.py --configs hdfs,tws --messages 3 --restarts 1 \\
        --backlog 2000 --batches 30                  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script: the project's packages are beside this folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

from broker_process import descendants, memory_kb, process_parents, topic_broker  # noqa: E402
from source_restart import Bench, Figures  # noqa: E402
from spark_latency import OutputWatcher, stop_app, wait_for  # noqa: E402

from benchmarks.class_archive import wait_for_archive  # noqa: E402
from benchmarks.work_folder import work_folder  # noqa: E402
from checkpoint_stores import CheckpointPlace  # noqa: E402
from scenarios.checker.folder_usage import CheckpointUsage  # noqa: E402
from scenarios.engine.observers.checkpoint_size import measure  # noqa: E402
from spark_app.lines.batch_line import parse_batch_lines  # noqa: E402
from spark_app.runtime.connector_jars import connector_jars  # noqa: E402
from spark_app.runtime.spark_version import installed_spark_version  # noqa: E402
from spark_app.settings import SparkAppSettings  # noqa: E402

__all__ = [
    "CONFIGURATIONS",
    "Configuration",
    "MemorySampler",
    "Peaks",
    "Result",
    "batches_done",
    "classify",
    "footer",
    "rows",
    "table",
]

TOPIC = "Experience"  # Bench sends to it


@dataclass(frozen=True)
class Configuration:
    key: str  # the folder under --work-dir and the name in --configs
    label: str  # the table's column
    options: dict[str, Any]  # SparkAppSettings fields beyond the default


CONFIGURATIONS = (
    Configuration("hdfs", "hdfs, applyInPandasWithState", {}),
    Configuration("rocksdb", "rocksdb", {"state_store": "rocksdb"}),
    Configuration(
        "rocksdb-changelog",
        "rocksdb + changelog",
        {"state_store": "rocksdb", "changelog_checkpointing": True},
    ),
    Configuration(
        "tws",
        "transformWithState (rocksdb)",
        {"state_store": "rocksdb", "counter": "transform-with-state"},
    ),
)
BASELINE = CONFIGURATIONS[0].key
KINDS = ("driver JVM", "driver Python", "Python workers")


@dataclass
class Peaks:
    """The highest RSS seen per kind of process, in kB, and of the whole tree at one sample."""

    kb: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    total_kb: int = 0
    workers_at_once: int = 0

    def add(self, sample: dict[str, list[int]]) -> None:
        for kind, sizes in sample.items():
            if kind in self.kb:
                self.kb[kind] = max(self.kb[kind], sum(sizes))
        self.total_kb = max(self.total_kb, sum(sum(sizes) for sizes in sample.values()))
        self.workers_at_once = max(self.workers_at_once, len(sample.get("Python workers", [])))


def classify(pid: int, root: int, command: str) -> str:
    """The kind of one process of the app's tree: `root` is the driver Python (`python -m
    spark_app`), `command` the process's /proc/<pid>/cmdline with NULs as spaces."""
    if pid == root:
        return "driver Python"
    program = Path(command.split(" ", 1)[0]).name
    if program == "java":
        return "driver JVM"
    if program.startswith("python"):
        return "Python workers"
    return "other"  # e.g. a shell of spark-submit's, counted in the total only


class MemorySampler(threading.Thread):
    """Samples the RSS of the app that `follow` names, into that configuration's Peaks."""

    def __init__(self, interval: float) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peaks: dict[str, Peaks] = {}
        self._root: int | None = None
        self._key = ""
        self._lock = threading.Lock()
        self._stopping = (
            threading.Event()
        )  # not `_stop`: threading.Thread has its own, called after a fork

    def follow(self, root: int, key: str) -> None:
        with self._lock:
            self._root, self._key = root, key
            self.peaks.setdefault(key, Peaks())

    def run(self) -> None:
        while not self._stopping.wait(self.interval):
            with self._lock:
                root, key = self._root, self._key
            if root is not None:
                self.peaks[key].add(self.sample(root))

    @staticmethod
    def sample(root: int) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for pid in descendants(root, process_parents()):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                rss = memory_kb(pid, "VmRSS")
            except (OSError, RuntimeError):
                continue  # ended while we looked, or a zombie without memory
            found.setdefault(classify(pid, root, command), []).append(rss)
        return found

    def stop(self) -> None:
        self._stopping.set()


@dataclass
class Result:
    figures: Figures
    usage: CheckpointUsage
    soak_batches: int  # timed ones: those after the first
    soak_sec: float
    peaks: Peaks


def batches_done(console: str) -> int:
    """How many batches a fresh checkpoint's app has finished, from its console lines."""
    return max((line.batch_id + 1 for line in parse_batch_lines(console)), default=0)


class StateBench(Bench):
    """Bench with one source and a configuration per folder; every app it starts is sampled."""

    def __init__(self, work: Path, bootstrap: str, source: str, sampler: MemorySampler) -> None:
        super().__init__(work, bootstrap)
        self.source, self.sampler = source, sampler
        self.folders: dict[str, tuple[Configuration, int]] = {}  # folder -> (configuration, offset)

    def open(self, folder: str, config: Configuration) -> None:
        """A fresh checkpoint in `folder` that starts at the topic's end (value n is at n - 1)."""
        self.folders[folder] = (config, self.next_value - 1)

    def settings(self, source: str, trigger_sec: float) -> SparkAppSettings:
        config, start = self.folders[source]
        folder = self.work / source
        options = dict(config.options)
        # A store's checkpoint (store_compare.py): the folder's place on that store.
        place = CheckpointPlace(
            options.pop("checkpoint_store", "local"),
            folder / "checkpoints",
            options.pop("checkpoint_store_url", None),
        )
        return SparkAppSettings(
            bootstrap_servers=self.bootstrap,
            source=self.source,
            checkpoint=place,
            log_dir=folder / "log",
            trigger_sec=trigger_sec,
            starting_offsets=json.dumps({TOPIC: {"0": start}}),
            **options,
        )

    def start(self, source: str, name: str, trigger_sec: float = 1.0) -> subprocess.Popen[str]:
        app = super().start(source, name, trigger_sec)
        self.sampler.follow(app.pid, self.folders[source][0].key)
        return app

    def warm_up(self, config: Configuration) -> None:
        """`config`'s app on a throwaway checkpoint, to its first output line; not measured."""
        folder = "warm-up"
        (self.work / folder).mkdir(parents=True, exist_ok=True)
        self.open(folder, replace(config, key=folder))
        watcher = OutputWatcher(self.work / folder / "log" / "streaming-output.log")
        watcher.start()
        try:
            value, _ = self.send()
            app = self.start(folder, "warm-up")
            try:
                wait_for(lambda: value in watcher.seen, 600, "the warm-up's first output")
                wait_for_archive()  # before stop_app, which ends the app's own writer
            finally:
                stop_app(app)
        finally:
            watcher.stop()

    def run(self, config: Configuration, args: argparse.Namespace) -> Result:
        print(
            f"state_compare: {config.key}: start, {args.messages} 1-message batches, "
            f"{args.restarts} restart(s), catch-up of {args.backlog:,}",
            file=sys.stderr,
        )
        (self.work / config.key).mkdir(parents=True, exist_ok=True)
        self.open(config.key, config)
        figures = self.measure(config.key, args.messages, args.restarts, args.backlog)
        print(f"state_compare: {config.key}: soak of {args.batches} batches", file=sys.stderr)
        done, seconds, usage = self.soak(config, args.batches, args.trigger_sec, args.rate)
        return Result(figures, usage, done, seconds, self.sampler.peaks[config.key])

    def soak(
        self, config: Configuration, batches: int, trigger_sec: float, rate: float
    ) -> tuple[int, float, CheckpointUsage]:
        """`batches` batches on a fresh checkpoint, fed `rate` messages a second; the folder
        walked after a clean stop. Returns the batches after the first (which waits for the
        app's start), the seconds they took, and the walk."""
        folder = f"{config.key}-soak"
        (self.work / folder).mkdir(parents=True, exist_ok=True)
        self.open(folder, config)
        console = self.work / folder / "soak.out"
        feeding = threading.Event()
        feeding.set()

        def feed() -> None:
            while feeding.is_set():
                _, sent = self.send()
                time.sleep(max(0.0, sent + 1 / rate - time.monotonic()))

        feeder = threading.Thread(target=feed, daemon=True)
        app = self.start(folder, "soak", trigger_sec)
        started = time.monotonic()
        feeder.start()
        try:
            # Polled once a second: each look parses the whole console output.
            deadline = started + 600 + batches * 10
            first: tuple[int, float] | None = None  # batches done, and when, once one is
            while (done := batches_done(console.read_text())) < batches:
                if done and first is None:
                    first = (done, time.monotonic())
                if app.poll() is not None:
                    raise SystemExit(
                        f"benchmark: {config.key}: the soak's app exited "
                        f"with {app.returncode}; see {console}"
                    )
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"benchmark: {config.key}: {done} of {batches} batches in time"
                    )
                time.sleep(1.0)
            first = first or (1, started)  # all of them done before the first look
            timed = (done - first[0], time.monotonic() - first[1])
        finally:
            feeding.clear()
            feeder.join()
            stop_app(app)
        return *timed, self.checkpoint_usage(folder)

    def checkpoint_usage(self, folder: str) -> CheckpointUsage:
        """One walk of `folder`'s checkpoint (store_compare.py reads it from its store)."""
        return measure(self.work / folder / "checkpoints")


def rows(
    results: dict[str, Result], args: argparse.Namespace
) -> list[tuple[str, str, dict[str, float]]]:
    """(measure, unit, value per configuration) for the table."""

    def each(value) -> dict[str, float]:
        return {key: value(result) for key, result in results.items()}

    mb = 1024.0
    restarts = len(next(iter(results.values())).figures.restarts)
    table_rows = [
        (
            "first start, fresh checkpoint, to first output",
            "s",
            each(lambda r: r.figures.first_start),
        ),
        (
            f"1-message batch, its duration (median `took` of {args.messages})",
            "s",
            each(
                lambda r: (
                    statistics.median(r.figures.one_row_ms) / 1000
                    if r.figures.one_row_ms
                    else float("nan")
                )
            ),
        ),
        (
            "1-message batch, send to output line (median)",
            "s",
            each(
                lambda r: (
                    statistics.median(r.figures.latencies) if r.figures.latencies else float("nan")
                )
            ),
        ),
        (
            f"restart after kill -9 to first output (median of {restarts})",
            "s",
            each(
                lambda r: (
                    statistics.median(r.figures.restarts) if r.figures.restarts else float("nan")
                )
            ),
        ),
        (
            f"catch-up of {args.backlog:,} messages, batch time",
            "s",
            each(lambda r: r.figures.catch_up_sec),
        ),
        ("catch-up rate", "msg/s", each(lambda r: args.backlog / r.figures.catch_up_sec)),
    ]
    for kind in KINDS:
        table_rows.append(
            (
                f"RSS max: {kind}" + (", summed" if kind == "Python workers" else ""),
                "MB",
                each(lambda r, kind=kind: r.peaks.kb[kind] / mb),
            )
        )
    table_rows += [
        (
            "RSS max: all the app's processes at one sample",
            "MB",
            each(lambda r: r.peaks.total_kb / mb),
        ),
        ("Python workers at once (max)", "", each(lambda r: r.peaks.workers_at_once)),
        (
            f"checkpoint after {args.batches:,} batches: size",
            "kB",
            each(lambda r: r.usage.total_bytes / 1024),
        ),
        (
            f"checkpoint after {args.batches:,} batches: files",
            "",
            each(lambda r: r.usage.total_files),
        ),
        ("of which state/: size", "kB", each(lambda r: r.usage.bytes.get("state", 0) / 1024)),
        ("of which state/: files", "", each(lambda r: r.usage.files.get("state", 0))),
        (
            "soak: seconds per batch, after the first",
            "s",
            each(lambda r: r.soak_sec / r.soak_batches if r.soak_batches else float("nan")),
        ),
    ]
    return table_rows


def _number(value: float, unit: str) -> str:
    if value != value:  # NaN: nothing was measured
        return "-"
    if unit == "s":
        text = f"{value:.2f}"
    elif unit == "MB" and value < 10:
        text = f"{value:.2f}"
    else:
        text = f"{value:,.0f}"
    return f"{text} {unit}".strip()


def table(measures: list[tuple[str, str, dict[str, float]]], labels: dict[str, str]) -> str:
    """One row per measure, one column per configuration (in `labels`' order), and after each
    one but the first its ratio to the first."""
    keys = list(labels)
    header = ["measure", labels[keys[0]]]
    for key in keys[1:]:
        header += [labels[key], f"÷ {keys[0]}"]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for what, unit, values in measures:
        base = values[keys[0]]
        cells = [what, _number(base, unit)]
        for key in keys[1:]:
            value = values[key]
            ratio = value / base if base and base == base and value == value else float("nan")
            cells += [_number(value, unit), "-" if ratio != ratio else f"x{ratio:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configs",
        default=",".join(c.key for c in CONFIGURATIONS),
        help="which configurations, comma-separated, in this order; the first is "
        "the ratios' base (default: all four, hdfs first)",
    )
    parser.add_argument(
        "--source",
        choices=("spark-kafka", "python"),
        default="spark-kafka",
        help="the Kafka source of every configuration: Spark's connector (the "
        "app's default) or ours",
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=20,
        help="1-message batches, one a second, per configuration",
    )
    parser.add_argument(
        "--restarts",
        type=int,
        default=2,
        help="kill -9 of the app's process group and a restart, per configuration",
    )
    parser.add_argument(
        "--backlog",
        type=int,
        default=100_000,
        help="messages a warm app catches up in one batch, per configuration",
    )
    parser.add_argument(
        "--batches",
        type=int,
        default=1000,
        help="batches of the soak whose checkpoint folder is measured",
    )
    parser.add_argument(
        "--trigger-sec",
        type=float,
        default=0.2,
        help="the soak's trigger: short, so the batches follow each other",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=20.0,
        help="messages a second during the soak: enough for every trigger to "
        "find data (a trigger without data runs no batch)",
    )
    parser.add_argument(
        "--sample-sec", type=float, default=0.5, help="how often the app's processes' RSS is read"
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        default=None,
        help="where the broker, the checkpoints, the logs and each app's console "
        "output go, kept (default: a temporary folder, removed at the end)",
    )
    args = parser.parse_args()
    chosen = args.configs.split(",")
    known = {c.key: c for c in CONFIGURATIONS}
    if unknown := [key for key in chosen if key not in known]:
        parser.error(f"unknown configuration(s) {', '.join(unknown)}; known: {', '.join(known)}")
    with work_folder(args.work_dir, "state-bench-") as work:
        print(f"state_compare: work folder {work}", file=sys.stderr)
        if args.source == "spark-kafka":
            connector_jars(installed_spark_version())  # cached before any clock starts
        sampler = MemorySampler(args.sample_sec)
        sampler.start()
        began = time.monotonic()
        try:
            with topic_broker(work) as bootstrap:
                bench = StateBench(work, bootstrap, args.source, sampler)
                print(f"state_compare: warm-up start ({chosen[0]})", file=sys.stderr)
                bench.warm_up(known[chosen[0]])
                results = {key: bench.run(known[key], args) for key in chosen}
            print(table(rows(results, args), {key: known[key].label for key in chosen}))
            print(footer(began, f"--source {args.source}"))
            return 0
        finally:
            sampler.stop()


def footer(began: float, what: str) -> str:
    """The line under a table: the machine, its load, the Spark line, the run's length."""
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"\n{os.cpu_count()} CPUs, load average {load} (1 / 5 / 15 min) at the end; "
        f"PySpark {installed_spark_version()}, {what}; Spark's class archive in place for "
        f"every timed start; the run took {(time.monotonic() - began) / 60:.1f} min"
    )


if __name__ == "__main__":
    sys.exit(main())
