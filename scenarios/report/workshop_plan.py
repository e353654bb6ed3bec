"""The workshop's plans, with times from a measured run: docs/workshop.md's plan tables.

A module's time is its scenarios' runs, measured, plus the room's pauses and the talk around
them. A run is measured with `--fast` on a 2-core machine (`run … --fast --report R`); each step
adds the pause `--projector 60` makes before it runs, standing in for the room's prediction
(60 s a step: a guided run's Enter comes when the room has answered). The plan keeps two
breaks, the puzzle before the wrap-up (its play measured, PUZZLE_PLAY_SEC) and at least 5
minutes of slack in three hours.

`uv run python -m scenarios.report.workshop_plan measure R` keeps each scenario's measured
seconds and steps in docs/data/workshop-times.json (from R's `<scenario>.json`, a run's report)
and renders both plans into docs/workshop.md between their markers; a fast test renders them
again from the JSON and compares (tests/scenarios/report/test_workshop_plan.py), and holds the
three-hour plan to its slack.

Usage: `uv run python -m scenarios.report.workshop_plan measure reports/run-all`
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scenarios.report.verdicts import read_result

__all__ = [
    "BREAK_MIN",
    "DAY_MIN",
    "NINETY",
    "NINETY_MIN",
    "PAUSE_SEC",
    "PLAN",
    "PUZZLE_PLAY_SEC",
    "SLACK_MIN",
    "Module",
    "measured",
    "module_minutes",
    "plan_table",
    "total_minutes",
    "with_plans",
]

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGE = DOCS / "workshop.md"
TIMES = DOCS / "data" / "workshop-times.json"
COMMAND = "uv run python -m scenarios.report.workshop_plan measure REPORT_DIR"
PAUSE_SEC = 60.0  # --projector 60: the room's prediction before each step
BREAK_MIN = 10.0
# 5, not 15, since the puzzle (issue 55) took ten of them before the wrap-up: the puzzle is
# where a room's questions go on a day that has one.
SLACK_MIN = 5.0
# One play of the puzzle, torn-offsets: its setup (the job run and broken), 56 s, and one
# --check of the repaired job, 23 s, as tests/scenarios/puzzle/test_puzzle_e2e.py printed them
# (`pytest -s`) on a 2-core machine shared with other runs, 29 Nov 2026.
PUZZLE_PLAY_SEC = 79.0
DAY_MIN = 180.0
NINETY_MIN = 90.0


@dataclass(frozen=True)
class Module:
    """One module of a plan: what it runs, the talk around it, the rule they leave with."""

    title: str
    command: str
    scenarios: tuple[str, ...] = ()
    talk_min: float = 10.0
    rule: str = ""
    is_break: bool = False
    # The exercise that ends it (scenarios/exercises/), the attendee's turn, with a row of its
    # own: its name, its title and its minutes as the exercise states them (a fast test holds
    # them to the exercise's; the report floor does not import the exercises' floor).
    exercise: str = ""
    exercise_title: str = ""
    exercise_min: float = 0.0
    # A hands-on play's machine time, measured (the puzzle: its setup and one --check), counted
    # with the runs; the talk is then the attendee's diagnosis and repair.
    play_sec: float = 0.0


def _break(title: str = "break") -> Module:
    return Module(title, "", talk_min=BREAK_MIN, is_break=True)


PLAN: tuple[Module, ...] = (
    Module(
        "1. The demo: exactly once, by hand",
        "uv run python -m scenarios demo",
        (),
        20,
        "a checkpoint makes a crash a replay, not a loss",
    ),
    Module(
        "2. Anatomy of a checkpoint (a second terminal, the demo stopped with s)",
        "uv run python -m spark_app inspect",
        (),
        15,
        "offsets/N before the batch, commits/N after it",
    ),
    Module(
        "3. Retention's race",
        "uv run python -m scenarios run short-retention --fast --guided",
        ("short-retention",),
        10,
        "retention must outlast your longest outage",
    ),
    Module(
        "4. Hard reset",
        "uv run python -m scenarios run checkpoint-reset --fast --guided",
        ("checkpoint-reset",),
        8,
        "a reset forgets; `latest` skips silently",
    ),
    _break(),
    Module(
        "5. Poison pill",
        "uv run python -m scenarios run poison-pill --fast --guided",
        ("poison-pill",),
        8,
        "a crash loop at one offset needs a fix forward",
        exercise="fix-forward",
        exercise_title="a poison pill crashes the job at every start: get past it on the same "
        "checkpoint",
        exercise_min=8.0,
    ),
    Module(
        "6. Exactly once against at least once",
        "uv run python -m scenarios run chaos --fast --guided",
        ("chaos",),
        8,
        "the sink decides: idempotent on the batch id",
    ),
    _break(),
    Module(
        "7. Upgrades",
        "uv run python -m scenarios run upgrade --fast --guided",
        ("upgrade",),
        8,
        "what a checkpoint allows to change",
    ),
    Module(
        "8. Spark 4's state",
        "uv run python -m scenarios run checkpoint-v2 --fast --guided",
        ("checkpoint-v2",),
        6,
        "which store and format, and that there is no way back",
    ),
    Module(
        "the puzzle: a job that will not restart (puzzle.md; a seed each: 0, 1, 2, …)",
        "uv run python -m scenarios puzzle --seed 0",
        (),
        12,
        "diagnose before you repair; a reset is the last repair, not the first",
        play_sec=PUZZLE_PLAY_SEC,
    ),
    Module("wrap-up: the puzzle's answers and the cheat-sheet", "", (), 6, ""),
)

NINETY: tuple[Module, ...] = (
    Module(
        "1. The demo",
        "uv run python -m scenarios demo",
        (),
        15,
        "a checkpoint makes a crash a replay, not a loss",
    ),
    Module(
        "2. Anatomy (a second terminal)",
        "uv run python -m spark_app inspect",
        (),
        10,
        "offsets/N before the batch, commits/N after it",
    ),
    Module(
        "3. Retention's race",
        "uv run python -m scenarios run short-retention --fast --guided",
        ("short-retention",),
        6,
        "retention must outlast your longest outage",
    ),
    Module(
        "4. Hard reset",
        "uv run python -m scenarios run checkpoint-reset --fast --guided",
        ("checkpoint-reset",),
        5,
        "a reset forgets; `latest` skips silently",
    ),
    Module(
        "6. Exactly once (the trainer runs it, the room predicts)",
        "uv run python -m scenarios run chaos --fast --projector 60",
        ("chaos",),
        4,
        "the sink decides: idempotent on the batch id",
    ),
    Module("wrap-up", "", (), 5, ""),
)


def measured(reports: Sequence[Path]) -> dict[str, dict[str, float]]:
    """Each scenario's measured seconds and steps, from a run's reports."""
    found: dict[str, dict[str, float]] = {}
    for folder in reports:
        for path in sorted(folder.glob("*.json")):
            if path.name == "matrix.json":
                continue
            result = read_result(path)
            steps = sum(1 for n in result.narration if n.get("kind") == "step")
            if result.verdict == "passed" and steps:
                found[result.name] = {"seconds": round(result.duration_sec, 1), "steps": steps}
    return found


def module_minutes(module: Module, times: Mapping[str, Mapping[str, float]]) -> float:
    """The module's talk, and each scenario's measured run with a pause before each step (its
    exercise's minutes are counted on the exercise's own row)."""
    runs = sum(
        times[s]["seconds"] + PAUSE_SEC * times[s]["steps"] for s in module.scenarios if s in times
    )
    return module.talk_min + (runs + module.play_sec) / 60


def _exercise_row(module: Module) -> str:
    """The row of a module's exercise (its minutes stated, an attendee's own pace)."""
    command = f"`uv run python -m scenarios exercise {module.exercise}`"
    return (
        f"your turn: `{module.exercise}` (exercises.md) | {module.exercise_min:.0f} (stated) | "
        f"{command} | {module.exercise_title} |"
    )


def _clock(minutes: float) -> str:
    return f"{int(minutes // 60)}:{int(round(minutes % 60)):02d}"


def plan_table(
    plan: Sequence[Module], times: Mapping[str, Mapping[str, float]], length_min: float = DAY_MIN
) -> str:
    head = (
        "| starts | module | minutes (run + pauses + talk) | type this | the rule they leave with |"
    )
    lines = [head, "|---|---|---|---|---|"]
    at = 0.0
    for module in plan:
        minutes = module_minutes(module, times)
        runs = minutes - module.talk_min
        split = f"{minutes:.0f} ({runs:.0f} + {module.talk_min:.0f})" if runs else f"{minutes:.0f}"
        command = f"`{module.command}`" if module.command else ""
        lines.append(f"| {_clock(at)} | {module.title} | {split} | {command} | {module.rule} |")
        at += minutes
        if module.exercise:
            lines.append(f"| {_clock(at)} | {_exercise_row(module)}")
            at += module.exercise_min
    lines.append(
        f"| {_clock(at)} | end; slack {length_min - at:.0f} min in {_length(length_min)} | | | |"
    )
    return "\n".join(lines)


def _length(minutes: float) -> str:
    return "three hours" if minutes == DAY_MIN else f"{minutes:.0f} minutes"


def total_minutes(plan: Sequence[Module], times: Mapping[str, Mapping[str, float]]) -> float:
    return sum(module_minutes(m, times) + m.exercise_min for m in plan)


def _marker(name: str) -> tuple[str, str]:
    return (
        f"<!-- {name} plan: rendered by `{COMMAND}` from the measured times; do not edit -->",
        f"<!-- end of the {name} plan -->",
    )


def with_plans(page: str, times: Mapping[str, Mapping[str, float]]) -> str:
    for name, plan, length in (("three-hour", PLAN, DAY_MIN), ("90-minute", NINETY, NINETY_MIN)):
        head, tail = _marker(name)
        if head not in page or tail not in page:
            raise ValueError(f"{PAGE.name} has no markers for the {name} plan: add {head!r}")
        before, rest = page.split(head, 1)
        _, after = rest.split(tail, 1)
        page = f"{before}{head}\n{plan_table(plan, times, length)}\n{tail}{after}"
    return page


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios.report.workshop_plan",
        description="Render docs/workshop.md's plans from a run's measured times.",
    )
    p.add_argument("what", choices=("measure",))
    p.add_argument("reports", nargs="+", type=Path, metavar="REPORT_DIR")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    times = measured(args.reports)
    TIMES.parent.mkdir(exist_ok=True)
    TIMES.write_text(json.dumps(times, indent=1, sort_keys=True) + "\n")
    PAGE.write_text(with_plans(PAGE.read_text(encoding="utf-8"), times), encoding="utf-8")
    print(f"{PAGE}: both plans from {len(times)} measured scenario(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
