"""`python -m scenarios nemesis --minutes N --seed S`: a job under random faults, one checker.

Exit code 0 when every value sent was counted exactly once (less what retention deleted before
the app read it, each range named), 1 when anything else was lost or doubled (with the fault
after which the output went wrong and the command that replays the schedule), 2 for bad input,
before anything starts. `--dry-run` prints the schedule and starts nothing. Page:
docs/nemesis.md.

Usage:
    python -m scenarios nemesis --minutes 2 --seed 7 --fast
    python -m scenarios nemesis --minutes 2 --seed 7 --faults kill,pause --dry-run
    python -m scenarios nemesis --minutes 10 --seed 3 --stack apache/connector --brokers 3
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from checkpoint_stores import STORES
from launch.errors import LaunchError
from launch.hangup import stop_like_ctrl_c
from scenarios.engine.faults.appliers import Setup
from scenarios.engine.faults.schedule import FAULT_KINDS, parse_kinds
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import add_stack_options, chosen_stack
from scenarios.errors import ScenarioError
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import exit_code, print_verdicts
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.run.matrix import on_spark, print_matrix, run_matrix
from scenarios.run.nemesis import NemesisPlan, nemesis_scenario, plan_nemesis, replay_command
from scenarios.run.query_check import checked_query
from scenarios.run.runner import run_scenarios

__all__ = ["main_parser", "run_nemesis"]


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios nemesis",
        description="Run the Spark app under a seeded schedule of faults for N minutes, "
        "supervised, then check that every value sent was counted exactly once. Exit 0, 1, "
        "or 2 for bad input.",
    )
    p.add_argument(
        "--minutes", type=_minutes, default=2.0, metavar="N", help="minutes of faults (default 2)"
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="the schedule's seed: the same seed, the same schedule (default: a new one, printed)",
    )
    p.add_argument(
        "--faults",
        metavar="K1,K2,…",
        help=f"the kinds to draw from: {', '.join(FAULT_KINDS)} (default: every kind this run "
        "can apply; the others are named with why)",
    )
    p.add_argument("--dry-run", action="store_true", help="print the schedule and start nothing")
    p.add_argument("--fast", action="store_true", help="short timings, as for run")
    p.add_argument(
        "--report", type=_folder, metavar="DIR", help="keep the run's folder, history and report"
    )
    p.add_argument(
        "--query",
        type=Path,
        metavar="FILE.py",
        help="run your own query module instead of the counter; the oracle judges it at the end",
    )
    p.add_argument(
        "--retention-sec",
        type=_seconds,
        metavar="S",
        help="the topic's retention (default endless); the app then runs with "
        "failOnDataLoss=false and what retention deleted before it was read is named",
    )
    p.add_argument(
        "--checkpoint-store",
        choices=list(STORES),
        default="local",
        help="where the checkpoint lives: hdfs or s3 make store-cut possible (default local)",
    )
    p.add_argument(
        "--brokers",
        type=int,
        choices=(1, 3),
        default=1,
        help="Apache Kafka brokers: 3 makes the broker fault possible (default 1)",
    )
    p.add_argument(
        "--cluster",
        action="store_true",
        help="run the app on two executor JVMs (local-cluster): makes the executor fault possible",
    )
    p.add_argument(
        "--spark",
        metavar="V1,V2,…",
        help="run the Spark app on this PySpark (default: the project's own); several, "
        "comma-separated: the same schedule once per line, compared as a matrix",
    )
    p.add_argument("--kafka-version", metavar="VERSION", help="the Apache Kafka to start")
    p.add_argument(
        "--bootstrap-servers", metavar="HOST:PORT", help="use this Kafka instead of starting one"
    )
    add_stack_options(p)
    return p


def run_nemesis(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(argv)
    narrator = Narrator()
    try:
        settings = chosen_stack(args).applied_to(
            RunSettings(
                timings=Timings.fast() if args.fast else Timings.seed(),
                fast=args.fast,
                report_dir=args.report,
                bootstrap_servers=args.bootstrap_servers,
                checkpoint_store=args.checkpoint_store,
                kafka_version=args.kafka_version or "",
                class_archive=True,
                query=args.query,
            )
        )
        seed = args.seed if args.seed is not None else random.randrange(1, 10**6)
        plan = plan_nemesis(
            seed,
            args.minutes,
            parse_kinds(args.faults) if args.faults else tuple(FAULT_KINDS),
            Setup.of(settings, args.brokers, args.cluster),
            fast=args.fast,
            retention_sec=args.retention_sec,
        )
        if args.dry_run:
            for line in plan.lines():
                print(line)
            return 0
        stop_like_ctrl_c()
        scenario = nemesis_scenario(plan)
        lines = _lines(args.spark)
        if len(lines) > 1:
            return _on_each_line(lines, scenario, plan, settings, args.report)
        settings = on_spark(settings, lines[0] if lines else None, narrator.say)
        settings = checked_query(settings, narrator.say)
        prefetch_jars(settings, narrator.say, [scenario])
        results = run_scenarios([scenario], settings, narrator)
    except KeyboardInterrupt:
        print("interrupted; every process the nemesis started has been stopped", file=sys.stderr)
        return 1
    except (ScenarioError, LaunchError) as error:
        print(f"scenarios: {error}", file=sys.stderr)
        return 2
    print_verdicts(results, Console(highlight=False))
    code = exit_code(results)
    if code != 0:
        print(f"replay: {replay_command(plan, settings)}")
    return code


def _lines(text: str | None) -> list[str]:
    return [v.strip() for v in (text or "").split(",") if v.strip()]


def _on_each_line(
    lines: list[str],
    scenario: Scenario,
    plan: NemesisPlan,
    settings: RunSettings,
    report: Path | None,
) -> int:
    """The same schedule (one seed) on each Spark line in turn, as `matrix --spark` runs a
    scenario: a regression user soaks a candidate line beside today's."""
    for version in lines:  # each line's environment made here if new, and its connector
        prefetch_jars(on_spark(settings, version, print), print, [scenario])
    # Checked once on the project's PySpark, as matrix does; each line's app checks it again.
    matrix = run_matrix(lines, [scenario], checked_query(settings, print), Narrator(), report)
    print_matrix(matrix, Console(highlight=False))
    if matrix.exit_code != 0:
        for version in lines:
            print(f"replay: {replay_command(plan, replace(settings, spark_version=version))}")
    return matrix.exit_code


def _minutes(text: str) -> float:
    return _positive(text, "minutes", "2")


def _seconds(text: str) -> float:
    return _positive(text, "seconds", "20")


def _positive(text: str, unit: str, example: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of {unit} above 0, e.g. {example}"
        )
    return value


def _folder(text: str) -> Path:
    """A report folder, made absolute (the run's processes run in folders of their own)."""
    return Path(text).expanduser().resolve()
