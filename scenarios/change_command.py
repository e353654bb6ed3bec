"""`python -m scenarios check-change OLD.py NEW.py`: a change checked by running it, for a CI job.

Exit code 0 when NEW continues on OLD's checkpoint and agrees with the oracle, 1 when Spark
refuses it or its results differ, 2 for bad input (a module that cannot run, an unserved Spark
line), before anything starts. With one module and `--from`/`--to` it asks whether a Spark
upgrade keeps the module's checkpoint, and whether the downgrade back does. With `--corpus DIR`
(what `compat --keep DIR` wrote) it restarts every kept checkpoint on each `--to` line and
judges it with the oracle over the records kept with it (scenarios/run/corpus_check.py).

Usage:
    python -m scenarios check-change queries/count_per_key.py my_change.py --fast
    python -m scenarios check-change queries/dedup.py --from 4.0.0,4.1.1 --to 4.2.0 --fast
    python -m scenarios check-change --corpus corpus --to 4.2.0 --fast   # compat --keep's
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from launch.errors import LaunchError
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.spark_envs import SERVED_LINES
from scenarios.engine.stacks import add_stack_options, chosen_stack
from scenarios.errors import ScenarioError
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import exit_code, print_verdicts
from scenarios.run.check_change import (
    ChangeRun,
    change_scenario,
    messages_option,
    module_settings,
)
from scenarios.run.corpus import KeptCheckpoint, read_corpus
from scenarios.run.corpus_check import CorpusRun, corpus_scenario
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.run.query_check import checked_query
from scenarios.run.runner import run_scenarios

__all__ = ["main_parser", "run_check_change"]


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios check-change",
        description="Run OLD on a fresh checkpoint, stop it, restart NEW on the same checkpoint, "
        "and judge: continues (the oracle agrees with NEW over everything sent), refused "
        "(Spark's error class), or continues but differs (the keys, the likely cause). Exit 0, "
        "1, or 2 for bad input.",
    )
    p.add_argument("old", type=Path, nargs="?", metavar="OLD.py")
    p.add_argument(
        "new",
        type=Path,
        nargs="?",
        metavar="NEW.py",
        help="the changed module (default: OLD itself, for --from/--to)",
    )
    p.add_argument(
        "--from",
        dest="from_lines",
        default="",
        metavar="V1,V2,…",
        help="the PySpark line(s) OLD runs on (default: the project's own)",
    )
    p.add_argument(
        "--to",
        dest="to_lines",
        default="",
        metavar="V1,V2,…",
        help="the PySpark line(s) NEW runs on (default: the project's own)",
    )
    p.add_argument(
        "--messages",
        type=messages_option,
        default=20,
        metavar="N",
        help="how many messages OLD commits before it stops (default 20)",
    )
    p.add_argument(
        "--corpus",
        type=Path,
        metavar="DIR",
        help="instead of OLD and NEW: restart every checkpoint compat --keep DIR kept on the "
        "--to line(s), each with its own query and settings, and judge it with the oracle",
    )
    p.add_argument("--fast", action="store_true", help="short timings, as for run")
    p.add_argument("--report", type=Path, metavar="DIR", help="keep the run's folder and report")
    add_stack_options(p)
    return p


def _lines(text: str) -> list[str]:
    lines = [v.strip() for v in text.split(",") if v.strip()] or [""]
    unserved = [v for v in lines if v and v not in SERVED_LINES]
    if unserved:
        raise ScenarioError(
            f"{', '.join(unserved)}: Maven Central serves Spark's Kafka connector whole for "
            f"{', '.join(SERVED_LINES)} only; give one of those"
        )
    return lines


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    froms, tos = _lines(args.from_lines), _lines(args.to_lines)
    pairs = [(f, t) for f in froms for t in tos]
    if args.new is None:  # one module over lines: the upgrade, and the downgrade back
        pairs += [(t, f) for f, t in pairs if f != t]
    return list(dict.fromkeys(pairs))


def run_check_change(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(argv)
    narrator = Narrator()
    try:
        settings = chosen_stack(args).applied_to(
            RunSettings(
                timings=Timings.fast() if args.fast else Timings.seed(),
                fast=args.fast,
                report_dir=args.report.resolve() if args.report else None,  # the apps run elsewhere
                class_archive=True,
            )
        )
        if args.corpus is not None:
            return _run_corpus(args, settings, narrator)
        if args.old is None:
            raise ScenarioError("give OLD.py (and NEW.py), or --corpus DIR with --to LINE")
        pairs = _pairs(args)
        new = args.new or args.old
        for module in (args.old, new):
            module_settings(module)  # a SETTINGS the app does not know: one line, exit 2
        old = checked_query(replace(settings, query=args.old), narrator.say).query_checked
        checked = checked_query(replace(settings, query=new), narrator.say).query_checked
        assert old is not None and checked is not None
        scenarios = [
            replace(
                change_scenario(ChangeRun(old, checked, f, t, args.messages)),
                name="check-change" + (f"-{f or 'locked'}-to-{t or 'locked'}" if f or t else ""),
            )
            for f, t in pairs
        ]
        # The run's query is NEW's: what the stage waits on and judges by (OLD is started by name).
        settings = replace(
            settings, query=checked.path and Path(checked.path), query_checked=checked
        )
        prefetch_jars(settings, narrator.say, scenarios)
        results = run_scenarios(scenarios, settings, narrator)
    except (ScenarioError, LaunchError) as error:
        print(f"scenarios: {error}", file=sys.stderr)
        return 2
    print_verdicts(results, Console(highlight=False))
    for result in results:
        verdict = result.facts.get("change_verdict")
        if verdict:
            print(f"{result.name}: {verdict['line']}")
    return exit_code(results)


def _by_module(kept: list[KeptCheckpoint], corpus: Path) -> dict[Path, list[KeptCheckpoint]]:
    """The kept cells grouped by their query module's text (each cell keeps its own copy), so
    that Spark checks each module once; a cell whose module is gone is one line."""
    groups: dict[bytes, tuple[Path, list[KeptCheckpoint]]] = {}
    for cell in kept:
        module = Path(cell.manifest.query)
        if not module.is_file():
            raise ScenarioError(f"{corpus}: its query {module} is not there")
        groups.setdefault(module.read_bytes(), (module, []))[1].append(cell)
    return dict(groups.values())


def _run_corpus(args: argparse.Namespace, settings: RunSettings, narrator: Narrator) -> int:
    """Every kept checkpoint on every --to line: a run per query (the stage judges by it)."""
    if args.old is not None or args.from_lines:
        raise ScenarioError("--corpus takes no OLD.py, NEW.py or --from: the corpus names them")
    tos = _lines(args.to_lines)
    kept = read_corpus(args.corpus)
    results = []
    for query, cells in _by_module(kept, args.corpus).items():
        run_settings = checked_query(replace(settings, query=query), narrator.say)
        checked = run_settings.query_checked
        assert checked is not None
        scenarios = [corpus_scenario(CorpusRun(k, checked, to)) for k in cells for to in tos]
        # A Kafka per cell: each puts its kept records back under their own topic and
        # offsets, and a second cell (or line) on a shared broker would write them twice.
        run_settings = replace(run_settings, query=query, share_kafka=False)
        prefetch_jars(run_settings, narrator.say, scenarios)
        results += run_scenarios(scenarios, run_settings, narrator)
    print_verdicts(results, Console(highlight=False))
    for result in results:
        verdict = result.facts.get("change_verdict")
        if verdict:
            print(f"{result.name}: {verdict['line']}")
    return exit_code(results)
