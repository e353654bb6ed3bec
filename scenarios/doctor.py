"""Is this laptop ready for the workshop? `python -m scenarios doctor` checks and prepares it.

A trainer asks twenty attendees to run this before the day (or at the door): it checks what the
scenarios need (Linux, Python, Java 17+ and javac, cores, memory, disk, the demo's port, the
locked PySpark), then prepares what a first use would otherwise fetch or build in the middle of
a lesson: Apache Kafka's jars and Spark's connector (from Maven Central, once, with progress)
and spark-upgrade's older PySpark environment. Then a smoke run of one short scenario, end to
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from launch.commands import class_archive_command
from launch.ports import port_is_free
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.errors import ScenarioError
from spark_app.runtime.archive_command import ARCHIVE_IN_PLACE, NOTHING_TO_WRITE

__all__ = ["Finding", "run_doctor", "machine_findings"]

GIB = 1 << 30
MIN_CORES = 2
MIN_MEMORY_GIB, GOOD_MEMORY_GIB = 3.0, 6.0
MIN_DISK_GIB = 2.0
DEMO_PORT = 9092
SMOKE_SCENARIO = "checkpoint-reset"


@dataclass(frozen=True)
class Finding:
    """One check's outcome: `level` is ok, warning (runs, with a caveat) or problem (cannot)."""

    level: str
    what: str

    def line(self) -> str:
        return f"{_SHOWN[self.level]} {self.what}"


_SHOWN = {"ok": "ok     ", "warning": "warning", "problem": "PROBLEM"}


def _ok(what: str) -> Finding:
    return Finding("ok", what)


def _warn(what: str) -> Finding:
    return Finding("warning", what)


def _problem(what: str) -> Finding:
    return Finding("problem", what)


# --- the machine ---------------------------------------------------------------------------------


def platform_finding(platform: str = sys.platform) -> Finding:
    if platform.startswith("linux"):
        return _ok(f"platform {platform} (tested)")
    return _warn(
        f"platform {platform} is not tested: the scenarios and the demo are tested on "
        f"Linux only; use a Linux machine, or WSL2 on Windows (README.md, Platforms)"
    )


def python_finding(version: tuple[int, int] = sys.version_info[:2]) -> Finding:
    shown = ".".join(map(str, version))
    if version >= (3, 10):
        return _ok(f"Python {shown}")
    return _problem(f"Python {shown} is too old: install Python 3.10 or newer, then `uv sync`")


def java_findings() -> list[Finding]:
    from spark_app.errors import JavaMissingError
    from spark_app.runtime.session import check_java

    try:
        check_java()
    except JavaMissingError as error:
        return [_problem(str(error))]
    found = [_ok("Java 17+ for Spark and Apache Kafka")]
    if shutil.which("javac") is None:
        found.append(
            _warn(
                "no javac: slow-checkpoint compiles its slowed file manager with it; "
                "install a JDK (Debian/Ubuntu: apt-get install openjdk-17-jdk-headless)"
            )
        )
    else:
        found.append(_ok("javac, for slow-checkpoint"))
    return found


def cores_finding(cores: int | None = os.cpu_count()) -> Finding:
    if (cores or 0) >= MIN_CORES:
        return _ok(f"{cores} cores")
    return _problem(
        f"{cores or 1} core: Spark's local[2] and Kafka need {MIN_CORES}; give the "
        f"virtual machine {MIN_CORES} cores or more"
    )


def memory_finding(available_gib: float | None) -> Finding:
    if available_gib is None:
        return _warn(
            "free memory unknown (no /proc/meminfo): the scenarios need about "
            f"{MIN_MEMORY_GIB:g} GiB free, {GOOD_MEMORY_GIB:g} for the clusters"
        )
    shown = f"{available_gib:.1f} GiB memory available"
    if available_gib < MIN_MEMORY_GIB:
        return _problem(
            f"{shown}: the scenarios need {MIN_MEMORY_GIB:g} GiB; close other "
            f"programs or give the machine more memory"
        )
    if available_gib < GOOD_MEMORY_GIB:
        return _warn(
            f"{shown}: enough for the scenarios, tight for executor-loss and "
            f"worker-loss (clusters, about {GOOD_MEMORY_GIB:g} GiB)"
        )
    return _ok(shown)


def available_memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 / GIB
    except OSError:
        pass
    return None


def disk_finding(folder: Path, free_gib: float) -> Finding:
    if free_gib < MIN_DISK_GIB:
        return _problem(
            f"{free_gib:.1f} GiB free under {folder}: the jars, PySpark's second "
            f"environment and the checkpoints need {MIN_DISK_GIB:g} GiB; free some"
        )
    return _ok(f"{free_gib:.0f} GiB free under {folder}")


def port_finding(port: int, free: bool) -> Finding:
    if free:
        return _ok(f"port {port} is free for the demo's Kafka")
    return _warn(
        f"port {port} is taken: the demo and `python -m kafka_app` want it; stop what "
        f"holds it (`ss -ltnp | grep {port}`), or give them --port / --bootstrap-servers; "
        f"the scenarios choose free ports themselves"
    )


def spark_finding() -> Finding:
    from spark_app.errors import SparkVersionError
    from spark_app.runtime.spark_version import check_spark_version

    try:
        return _ok(f"PySpark {check_spark_version()}")
    except SparkVersionError as error:
        return _problem(str(error))


def machine_findings() -> list[Finding]:
    """Everything that can be checked without fetching or starting anything."""
    from maven_jars import cache_root

    cache = cache_root()
    cache.mkdir(parents=True, exist_ok=True)
    return [
        platform_finding(),
        python_finding(),
        *java_findings(),
        cores_finding(),
        memory_finding(available_memory_gib()),
        disk_finding(PROJECT_ROOT, shutil.disk_usage(PROJECT_ROOT).free / GIB),
        disk_finding(cache, shutil.disk_usage(cache).free / GIB),
        port_finding(DEMO_PORT, port_is_free(DEMO_PORT)),
        spark_finding(),
    ]


# --- what a first use would fetch or build -------------------------------------------------------


def prepared_findings(say: Callable[[str], None]) -> list[Finding]:
    """Fetch the default stack's jars and build spark-upgrade's older PySpark, with progress."""
    from scenarios.catalog.spark_upgrade import OLDEST_LINE_DEFAULT
    from scenarios.engine.spark_envs import spark_python
    from scenarios.run.jar_prefetch import prefetch_jars

    found = []
    try:
        prefetch_jars(RunSettings(), say)
        found.append(_ok("Apache Kafka's jars and Spark's connector are in the cache"))
    except ScenarioError as error:
        found.append(
            _problem(
                f"{error} (or run the workshop offline: every command takes "
                f"--offline, which needs no jars)"
            )
        )
    try:
        spark_python(OLDEST_LINE_DEFAULT, say)
        found.append(_ok(f"PySpark {OLDEST_LINE_DEFAULT}'s environment for spark-upgrade"))
    except ScenarioError as error:
        found.append(_warn(f"spark-upgrade cannot run here: {error}"))
    return found


def smoke_finding(say: Callable[[str], None]) -> Finding:
    """One short scenario end to end, as an attendee will run it."""
    command = [sys.executable, "-m", "scenarios", "run", SMOKE_SCENARIO, "--fast"]
    say(f"smoke run: {' '.join(command[1:])} (about a minute)")
    done = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True)
    if done.returncode == 0:
        return _ok(f"smoke run: {SMOKE_SCENARIO} passed end to end")
    last = next(
        (
            line
            for line in reversed(done.stdout.splitlines() + done.stderr.splitlines())
            if line.strip()
        ),
        "no output",
    )
    return _problem(
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
        return _ok("Spark's class archive is in place: Spark starts in about half the JVM time")
    if done.returncode == NOTHING_TO_WRITE:
        return _ok(
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
    return _warn(
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
