"""`python -m scenarios compat`: does a checkpoint written on one Spark line restart on another?

For the counter on each state store and checkpoint format, and for each gallery query, over
every ordered pair of served lines (scenarios/run/compat_plan.py), it runs the query on a fresh
checkpoint on the first line, stops it, restarts the same query on the second, and judges as
check-change does (scenarios/run/check_change.py, the same scenario and oracle): continues,
refused (Spark's error class) or continues but differs. A table closes the run, a row per
query and variant, a column per line pair; `--report DIR` keeps the reports that
`python -m scenarios.report.compat_table DIR` renders into docs/spark-versions.md.

`--keep DIR` keeps every checkpoint it wrote, as its writing line left it, with a manifest
(scenarios/run/corpus.py) that `check-change --corpus DIR --to LINE` restarts on a candidate.

Exit 0 when every cell continues and agrees, 1 otherwise, 2 for bad input (one line, an
unserved line, a query the gallery lacks) before anything starts.

Usage:
    python -m scenarios compat --fast --report reports/compat
    python -m scenarios compat --lines 4.0.0,4.2.0 --queries counter,dedup --fast --keep corpus
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from launch.errors import LaunchError
from launch.hangup import stop_like_ctrl_c
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.spark_envs import SERVED_LINES
from scenarios.engine.stacks import add_stack_options, chosen_stack
from scenarios.engine.stage import Stage
from scenarios.errors import ScenarioError
from scenarios.report.compat_table import compat_rows, table
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import ScenarioResult, exit_code, print_verdicts
from scenarios.run.check_change import (
    ChangeRun,
    change_scenario,
    messages_option,
    module_settings,
)
from scenarios.run.compat_plan import Cell, chosen_lines, chosen_queries, plan_cells
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.run.query_check import checked_query
from scenarios.run.runner import run_scenarios

__all__ = ["main_parser", "run_compat"]


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios compat",
        description="Write a checkpoint on one Spark line, restart it on another, and judge with "
        "the oracle: continues, refused (Spark's error class) or continues but differs; for the "
        "counter on each state store and checkpoint format and for each gallery query, over "
        "every ordered pair of served lines. Exit 0, 1, or 2 for bad input.",
    )
    p.add_argument(
        "--lines",
        default="",
        metavar="V1,V2,…",
        help=f"the PySpark lines, two or more (default: every served one, {','.join(SERVED_LINES)})",
    )
    p.add_argument(
        "--queries",
        default="",
        metavar="NAME,…",
        help="the queries by module name, e.g. counter,dedup (default: the counter and the "
        "whole gallery, queries/*.py)",
    )
    p.add_argument(
        "--messages",
        type=messages_option,
        default=20,
        metavar="N",
        help="how many messages the first line commits before it stops (default 20)",
    )
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep every checkpoint written, with a manifest, for check-change --corpus",
    )
    p.add_argument("--fast", action="store_true", help="short timings, as for run")
    p.add_argument("--report", type=Path, metavar="DIR", help="keep the run's folder and reports")
    add_stack_options(p)
    return p


def _with_fact(cell: Cell, story: Callable[[Stage], None]) -> Callable[[Stage], None]:
    """The cell's story with the fact the table reads first (its query, variant and lines)."""

    def run(stage: Stage) -> None:
        stage.fact(
            "compat",
            {
                "query": cell.query.stem,
                "variant": cell.variant.name,
                "from": cell.from_line,
                "to": cell.to_line,
            },
        )
        story(stage)

    return run


def _scenarios(
    cells: Sequence[Cell],
    settings: RunSettings,
    args: argparse.Namespace,
    say: Callable[[str], None],
) -> list[tuple[RunSettings, list[Scenario]]]:
    """A run per query (its settings name the query the stage judges by), a scenario per cell."""
    runs = []
    for query in dict.fromkeys(c.query for c in cells):
        checked = checked_query(replace(settings, query=query), say).query_checked
        assert checked is not None
        scenarios = []
        for cell in (c for c in cells if c.query == query):
            change = ChangeRun(
                checked,
                checked,
                cell.from_line,
                cell.to_line,
                args.messages,
                settings=cell.variant.settings,
                keep=args.keep.resolve() if args.keep else None,
                cell=cell.name,
            )
            scenario = change_scenario(change)
            scenarios.append(
                replace(scenario, name=f"compat-{cell.name}", run=_with_fact(cell, scenario.run))
            )
        runs.append((replace(settings, query=query, query_checked=checked), scenarios))
    return runs


def run_compat(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(argv)
    narrator = Narrator()
    results: list[ScenarioResult] = []
    cut_short: int | None = None  # the exit code of a run that did not reach its end
    try:
        lines, queries = chosen_lines(args.lines), chosen_queries(args.queries)
        for query in queries:
            module_settings(query)  # a SETTINGS the app does not know: one line, exit 2
        settings = chosen_stack(args).applied_to(
            RunSettings(
                timings=Timings.fast() if args.fast else Timings.seed(),
                fast=args.fast,
                report_dir=args.report.resolve() if args.report else None,  # the apps run elsewhere
                class_archive=True,
            )
        )
        cells = plan_cells(queries, lines)
        narrator.say(f"compat: {len(cells)} cell(s) over {', '.join(lines)}")
        stop_like_ctrl_c()  # a long run: a CI job cancelled stops it through its cleanup
        for run_settings, scenarios in _scenarios(cells, settings, args, narrator.say):
            prefetch_jars(run_settings, narrator.say, scenarios)
            results += run_scenarios(scenarios, run_settings, narrator)
    except (ScenarioError, LaunchError) as error:
        print(f"scenarios: {error}", file=sys.stderr)
        cut_short = 2
    except KeyboardInterrupt:
        print("compat: stopped", file=sys.stderr)
        cut_short = 130
    if results:  # what ran before a stop or an error is kept, and said
        print_verdicts(results, Console(highlight=False))
        print("\n".join(table(compat_rows(results))))
    return cut_short if cut_short is not None else exit_code(results)
