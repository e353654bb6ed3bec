"""Is this laptop ready for the workshop? `python -m scenarios doctor` checks and prepares it.

A trainer asks twenty attendees to run this before the day (or at the door): it checks what the
scenarios need (Linux's /proc, Python, Java 17+ and javac, cores, memory, the disk a first run's
caches take, a real terminal for the demo and `--guided`, the demo's port, the locked PySpark),
tries `--offline`'s stand-ins for a second (our broker and our source's Kafka client, no jars),
then prepares what a first use would otherwise fetch or build in the middle of a lesson: Apache
Kafka's jars and Spark's connector (from Maven Central, once, with progress) and spark-upgrade's
older PySpark environment. Then a smoke run of one short scenario, end to
end, on the default stack (about a minute; `--no-smoke` leaves it out), and last Spark's class
archive, written from the classes the smoke run's apps loaded, so that every Spark start of the
day is a few seconds shorter.

Each finding is one line: `ok` with what was found, or `PROBLEM`/`warning` with what to do.
The exit code is 1 when the workshop cannot run here (a PROBLEM), 0 otherwise.

Usage:
    uv run python -m scenarios doctor              # checks, fetches, prepares, smoke run
    uv run python -m scenarios doctor --no-smoke   # the same without the one-minute run
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from launch.commands import class_archive_command
from launch.platform_needs import RUN_NEEDS, WHERE_TO_RUN, demo_needs, lacking
from launch.ports import port_is_free
from scenarios.doctor.disk import (
    DiskNeed,
    disk_finding,
    disk_findings,
    first_run_needs,
    uv_cache_dir,
)
from scenarios.doctor.finding import Finding, ok, problem, warn
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.errors import ScenarioError
from spark_app.runtime.archive_command import ARCHIVE_IN_PLACE, NOTHING_TO_WRITE

__all__ = [
    "DiskNeed",
    "Finding",
    "disk_finding",
    "disk_findings",
    "first_run_needs",
    "machine_findings",
    "offline_finding",
    "run_doctor",
    "terminal_finding",
]

GIB = 1 << 30
MIN_CORES = 2
MIN_MEMORY_GIB, GOOD_MEMORY_GIB = 3.0, 6.0
DEMO_PORT = 9092
SMOKE_SCENARIO = "checkpoint-reset"
# The demo's two panels side by side, and a guided step's question with its live lines below.
MIN_COLUMNS, MIN_ROWS = 100, 30


# --- the machine ---------------------------------------------------------------------------------


def platform_finding(platform: str = sys.platform, missing: Sequence[str] | None = None) -> Finding:
    """`missing`: what the demo and `run` need that the platform lacks (None: look here)."""
    if missing is None:
        needs = (*RUN_NEEDS, *demo_needs(interactive=True))
        missing = sorted({need.name for need in lacking(needs)})
    if missing:
        return problem(
            f"platform {platform} has no {' and no '.join(missing)}: the demo and "
            f"`scenarios run` stop at once here; {WHERE_TO_RUN}"
        )
    if platform.startswith("linux"):
        return ok(f"platform {platform} (tested)")
    return warn(
        f"platform {platform} is not tested: the scenarios and the demo are tested on "
        f"Linux only; use a Linux machine, or WSL2 on Windows (README.md, Quick start)"
    )


def python_finding(version: tuple[int, int] = sys.version_info[:2]) -> Finding:
    shown = ".".join(map(str, version))
    if version >= (3, 10):
        return ok(f"Python {shown}")
    return problem(f"Python {shown} is too old: install Python 3.10 or newer, then `uv sync`")


def java_findings() -> list[Finding]:
    from spark_app.errors import JavaMissingError
    from spark_app.runtime.session import check_java

    try:
        check_java()
    except JavaMissingError as error:
        return [problem(str(error))]
    found = [ok("Java 17+ for Spark and Apache Kafka")]
    if shutil.which("javac") is None:
        found.append(
            warn(
                "no javac: slow-checkpoint compiles its slowed file manager with it; "
                "install a JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless)"
            )
        )
    else:
        found.append(ok("javac, for slow-checkpoint"))
    return found


def cores_finding(cores: int | None = os.cpu_count()) -> Finding:
    if (cores or 0) >= MIN_CORES:
        return ok(f"{cores} cores")
    return problem(
        f"{cores or 1} core: Spark's local[2] and Kafka need {MIN_CORES}; give the "
        f"virtual machine {MIN_CORES} cores or more"
    )


def memory_finding(available_gib: float | None) -> Finding:
    if available_gib is None:
        return warn(
            "free memory unknown (no /proc/meminfo): the scenarios need about "
            f"{MIN_MEMORY_GIB:g} GiB free, {GOOD_MEMORY_GIB:g} for the clusters"
        )
    shown = f"{available_gib:.1f} GiB memory available"
    if available_gib < MIN_MEMORY_GIB:
        return problem(
            f"{shown}: the scenarios need {MIN_MEMORY_GIB:g} GiB; close other "
            f"programs or give the machine more memory"
        )
    if available_gib < GOOD_MEMORY_GIB:
        return warn(
            f"{shown}: enough for the scenarios, tight for executor-loss and "
            f"worker-loss (clusters, about {GOOD_MEMORY_GIB:g} GiB)"
        )
    return ok(shown)


def available_memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 / GIB
    except OSError:
        pass
    return None


# --- the terminal ---------------------------------------------------------------------------------


def terminal_finding(
    stdin_tty: bool, stdout_tty: bool, term: str | None, size: tuple[int, int]
) -> Finding:
    """The demo's live screen and `run --guided` need a real terminal; off one the demo falls
    back to plain lines and --guided runs on without waiting for Enter."""
    columns, rows = size
    if not (stdin_tty and stdout_tty) or term in (None, "", "dumb"):
        why = (
            "stdin or stdout is not a terminal (a pipe, an editor's run pane, nohup)"
            if not (stdin_tty and stdout_tty)
            else f"TERM is {term or 'not set'}"
        )
        return warn(
            f"no real terminal here: {why}; the demo's live screen and `run --guided` need "
            f"one (without, the demo prints plain lines and --guided does not wait for Enter): "
            f"run them in a terminal window (or tmux), with uv run as in the README"
        )
    if columns < MIN_COLUMNS or rows < MIN_ROWS:
        return warn(
            f"terminal of {columns}x{rows}: the demo's panels and a guided step's live lines "
            f"want {MIN_COLUMNS}x{MIN_ROWS} or more; enlarge the window or use a smaller font"
        )
    return ok(f"a terminal of {columns}x{rows} for the demo and --guided")


def this_terminal() -> Finding:
    size = shutil.get_terminal_size(fallback=(0, 0))
    return terminal_finding(
        sys.stdin.isatty(), sys.stdout.isatty(), os.environ.get("TERM"), (size.columns, size.lines)
    )


def port_finding(port: int, free: bool) -> Finding:
    if free:
        return ok(f"port {port} is free for the demo's Kafka")
    return warn(
        f"port {port} is taken: the demo and `python -m kafka_app` want it; stop what "
        f"holds it (`ss -ltnp | grep {port}`), or give them --port / --bootstrap-servers; "
        f"the scenarios choose free ports themselves"
    )


def spark_finding() -> Finding:
    from spark_app.errors import SparkVersionError
    from spark_app.runtime.spark_version import check_spark_version

    try:
        return ok(f"PySpark {check_spark_version()}")
    except SparkVersionError as error:
        return problem(str(error))


def machine_findings() -> list[Finding]:
    """Everything that can be checked without fetching or starting anything."""
    from maven_jars import cache_root
    from scenarios.catalog.spark_upgrade import OLDEST_LINE_DEFAULT
    from scenarios.engine.spark_envs import environment_folder

    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    env_made = (environment_folder(OLDEST_LINE_DEFAULT) / "ready.json").is_file()
    needs = first_run_needs(uv_cache_dir(), cache, Path(tempfile.gettempdir()), env_made)
    return [
        platform_finding(),
        python_finding(),
        *java_findings(),
        cores_finding(),
        memory_finding(available_memory_gib()),
        *disk_findings(needs),
        this_terminal(),
        port_finding(DEMO_PORT, port_is_free(DEMO_PORT)),
        spark_finding(),
    ]


# --- --offline's stand-ins -------------------------------------------------------------------------


def offline_finding() -> Finding:
    """`--offline` tried for a second: our broker started in this process on a free port, a
    record sent to it with kafka-python, read back with our source's Kafka client, and PySpark's
    Python Data Source API, which our source is written on. No jars, no network."""
    from kafka import KafkaProducer
    from kafka.admin import KafkaAdminClient, NewTopic

    from kafka_app.broker import BrokerSettings, EmbeddedBroker
    from spark_app.offsets import TopicPartition
    from spark_app.source.kafka_client import TopicClient

    tp = TopicPartition("doctor", 0)
    try:
        from pyspark.sql.datasource import DataSource, DataSourceStreamReader  # noqa: F401

        with EmbeddedBroker(BrokerSettings(port=0)) as broker:
            bootstrap = broker.bootstrap_servers
            admin = KafkaAdminClient(bootstrap_servers=bootstrap)
            try:
                admin.create_topics([NewTopic(tp.topic, 1, 1)])
            finally:
                admin.close()
            producer = KafkaProducer(bootstrap_servers=bootstrap)
            try:
                producer.send(tp.topic, key=b"1", value=b"1").get(timeout=10)
            finally:
                producer.close()
            with TopicClient(bootstrap, timeout_sec=10.0) as kafka:
                read = [r.value for chunk in kafka.fetch_range(tp, 0, 1, 10_000) for r in chunk]
        if read != [b"1"]:
            raise RuntimeError(f"our source read {read!r} where one record b'1' was sent")
    except Exception as error:  # noqa: BLE001 - whatever failed is the finding, in one line
        first = str(error).strip().splitlines()[:1] or [type(error).__name__]
        return warn(
            f"--offline does not work here ({type(error).__name__}: {first[0][:200]}): without "
            f"network the workshop cannot fall back on our broker and source; run it online"
        )
    return ok("--offline works: our broker and our source, no jars, no network")


# --- what a first use would fetch or build -------------------------------------------------------


def prepared_findings(say: Callable[[str], None]) -> list[Finding]:
    """Fetch the default stack's jars and build spark-upgrade's older PySpark, with progress."""
    from scenarios.catalog.spark_upgrade import OLDEST_LINE_DEFAULT
    from scenarios.engine.spark_envs import spark_python
    from scenarios.run.jar_prefetch import prefetch_jars

    found = []
    try:
        prefetch_jars(RunSettings(), say)
        found.append(ok("Apache Kafka's jars and Spark's connector are in the cache"))
    except ScenarioError as error:
        found.append(
            problem(
                f"{error} (or run the workshop offline: every command takes "
                f"--offline, which needs no jars)"
            )
        )
    try:
        spark_python(OLDEST_LINE_DEFAULT, say)
        found.append(ok(f"PySpark {OLDEST_LINE_DEFAULT}'s environment for spark-upgrade"))
    except ScenarioError as error:
        found.append(warn(f"spark-upgrade cannot run here: {error}"))
    return found


def smoke_finding(say: Callable[[str], None]) -> Finding:
    """One short scenario end to end, as an attendee will run it."""
    command = [sys.executable, "-m", "scenarios", "run", SMOKE_SCENARIO, "--fast"]
    say(f"smoke run: {' '.join(command[1:])} (about a minute)")
    done = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True)
    if done.returncode == 0:
        return ok(f"smoke run: {SMOKE_SCENARIO} passed end to end")
    last = next(
        (
            line
            for line in reversed(done.stdout.splitlines() + done.stderr.splitlines())
            if line.strip()
        ),
        "no output",
    )
    return problem(
        f"smoke run: {SMOKE_SCENARIO} did not pass ({last.strip()}); run "
        f"`uv run python -m scenarios run {SMOKE_SCENARIO} --fast` to see why"
    )


def archive_finding(say: Callable[[str], None]) -> Finding:
    """Spark's class archive, written from what the smoke run's apps listed: every later Spark
    start maps its classes from it (about 4 s sooner on two cores)."""
    command = class_archive_command()
    say(f"{' '.join(command[1:])}: Spark's class archive, written once (a minute or so)")
    done = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True)
    if done.returncode == ARCHIVE_IN_PLACE:
        return ok("Spark's class archive is in place: Spark starts in about half the JVM time")
    if done.returncode == NOTHING_TO_WRITE:
        return ok(
            "Spark's class archive is not written yet: the first scenarios write it "
            "in the background"
        )
    last = next(
        (
            line
            for line in reversed(done.stdout.splitlines() + done.stderr.splitlines())
            if line.strip()
        ),
        "no output",
    )
    return warn(
        f"Spark's class archive was not written ({last.strip()}): Spark starts "
        f"without it, a few seconds slower"
    )


# --- the command -----------------------------------------------------------------------------------


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios doctor",
        description="Check and prepare this machine for the workshop.",
    )
    parser.add_argument(
        "--no-smoke", action="store_true", help="leave out the one-minute smoke run of one scenario"
    )
    return parser


def run_doctor(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(argv)

    def say(text: str) -> None:
        print(f"        {text}", flush=True)

    findings: list[Finding] = []

    def report(new: list[Finding]) -> None:
        for finding in new:
            print(finding.line(), flush=True)
        findings.extend(new)

    report(machine_findings())
    if not any(f.level == "problem" for f in findings):
        report([offline_finding()])
    if not any(f.level == "problem" for f in findings):
        report(prepared_findings(say))
    if not args.no_smoke and not any(f.level == "problem" for f in findings):
        report([smoke_finding(say)])
    if not any(f.level == "problem" for f in findings):
        report([archive_finding(say)])
    problems = sum(f.level == "problem" for f in findings)
    warnings = sum(f.level == "warning" for f in findings)
    print(
        f"doctor: {'NOT READY' if problems else 'ready'}: {problems} problem(s), "
        f"{warnings} warning(s)"
    )
    return 1 if problems else 0
