"""`python -m scenarios puzzle`: the capstone, a checkpoint and its job that will not restart.

`puzzle --seed S` sets it up in `puzzle/` (the job run, then broken by the fault the seed draws)
and keeps Kafka and the producer in its terminal until Ctrl-C. The attendee diagnoses and
repairs in a second terminal; `puzzle --check` runs the job as `puzzle/job.sh` stands and says
whether it continues exactly once, and what was lost if the repair was a reset. `puzzle --answer
S` is the trainer's: the fault, what diagnosis finds, the best repair and the tempting wrong
ones. `--reset` removes the folder. The attendee's `--check` never names the fault, nor does
the live page `--web` serves from the first terminal (with `--seed` only; docs/web.md).

Exit codes: 0 repaired (or the command did what it was asked), 1 not yet, 2 for bad input or a
puzzle not set up.

Usage:
    python -m scenarios puzzle --seed 7     # terminal 1
    python -m scenarios puzzle --seed 7 --web   # the same, and a live page of it
    python -m scenarios puzzle --check      # terminal 2, after the repair
    python -m scenarios puzzle --answer 7   # the trainer
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from launch.errors import LaunchError
from launch.hangup import stop_like_ctrl_c
from launch.leftovers import describe_leftovers, find_leftovers
from launch.platform_needs import RUN_NEEDS, require
from scenarios.engine.stacks import add_stack_options, chosen_stack
from scenarios.errors import ScenarioError
from scenarios.exercises.errors import NotSetUp, StillRunning
from scenarios.exercises.room import hold, room, room_settings
from scenarios.exercises.workspace import PUZZLE_HOME, Workspace
from scenarios.puzzle import FAULTS, fault_for
from scenarios.puzzle.check import check_repair
from scenarios.puzzle.setup import hand_over, story_lines
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.web.live_run import live_room
from scenarios.web.options import add_web_options, web_choice
from scenarios.web.room_brief import puzzle_brief

__all__ = ["PUZZLE", "main_parser", "run_puzzle"]

PUZZLE = Workspace(PUZZLE_HOME, script="job.sh")


class _OneLineParser(argparse.ArgumentParser):
    """Bad input is one line and exit 2, as every other error of the command (no usage block:
    `--help` has it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (--help for the options)\n")


def main_parser() -> argparse.ArgumentParser:
    p = _OneLineParser(
        prog="python -m scenarios puzzle",
        description="The workshop's capstone: a checkpoint and its job, broken by a fault the "
        "seed draws. Set it up (Kafka stays in this terminal), diagnose, repair, --check. "
        "Exit 0 repaired, 1 not yet, 2 for bad input.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--seed", type=int, metavar="S", help="set up the puzzle seed S draws")
    what.add_argument(
        "--check",
        action="store_true",
        help="run the job as puzzle/job.sh stands and judge it (Kafka must still run in the "
        "puzzle's first terminal)",
    )
    what.add_argument(
        "--answer", type=int, metavar="S", help="for the trainer: seed S's fault and its repair"
    )
    what.add_argument("--reset", action="store_true", help="remove puzzle/")
    add_stack_options(p)
    add_web_options(p)
    return p


def run_puzzle(argv: Sequence[str]) -> int:
    args = main_parser().parse_args(list(argv))
    try:
        if web_choice(args) is not None and args.seed is None:
            raise ScenarioError(
                "--web goes with --seed S: the first terminal serves the page, which follows "
                "the job --check runs too"
            )
        if args.answer is not None:
            return _answer(args.answer)
        if args.check:
            stop_like_ctrl_c()
            try:
                return _check()
            except KeyboardInterrupt:
                # Kafka and the producer are the first terminal's, and keep running there.
                print("[puzzle] --check stopped: the job it ran is stopped", file=sys.stderr)
                return 130
        if args.reset:
            return _reset()
        return _set_up(args)
    except KeyboardInterrupt:
        print(
            "[puzzle] stopped: Kafka and the producer are down; the folder stays",
            file=sys.stderr,
        )
        return 0
    except (ScenarioError, LaunchError) as error:
        print(f"puzzle: {error}", file=sys.stderr)
        return 2


def _say(text: str) -> None:
    print(f"[puzzle] {text}", flush=True)


def _set_up(args: argparse.Namespace) -> int:
    require("python -m scenarios puzzle", RUN_NEEDS)
    stop_like_ctrl_c()
    settings = room_settings(chosen_stack(args))
    prefetch_jars(settings, _say)
    ws = PUZZLE
    _say(f"setting up puzzle {args.seed} in {ws.root}/ (a minute or two)")
    with (
        live_room(web_choice(args), puzzle_brief(args.seed)) as page,
        room("puzzle", ws, settings, _say, quiet=True, listeners=page.listeners) as stage,
    ):
        setup = hand_over(stage, ws, args.seed, settings)
        print(f"\n== puzzle {args.seed}\n")
        for line in story_lines(ws, setup):
            print(line)
        print("\nKafka and the producer keep running here until Ctrl-C.\n", flush=True)
        page.handed_over(story_lines(ws, setup))
        hold(stage, _say)
    return 0


def _check() -> int:
    ws = PUZZLE
    if not ws.exists:
        raise NotSetUp(
            f"no puzzle set up here (no {ws.setup_file}): start one first, in another "
            "terminal: uv run python -m scenarios puzzle --seed S"
        )
    setup = ws.load()
    verdict = check_repair(ws, setup, fault_for(setup.facts["seed"]), _say)
    print(f"puzzle {setup.facts['seed']}: {'REPAIRED' if verdict.done else 'not yet'}")
    for line in verdict.lines:
        print(f"  {line}")
    return 0 if verdict.done else 1


def _answer(seed: int) -> int:
    fault = fault_for(seed)
    print(f"puzzle {seed}: {fault.name}: {fault.title}")
    for heading, lines in (
        ("diagnosis finds", fault.sees),
        ("the best repair", fault.best),
        ("tempting, and wrong", fault.wrong),
    ):
        print(f"  {heading}:")
        for line in lines:
            print(f"    {line}")
    others = ", ".join(f.name for f in FAULTS)
    print(f"  (the faults a seed draws: {others})")
    return 0


def _reset() -> int:
    ws = PUZZLE
    found = find_leftovers([ws.log, ws.checkpoints], [])
    if found:
        raise StillRunning(f"{ws.root}/ is in use: {describe_leftovers(found)}; stop that first")
    print(f"removed {ws.root}/" if ws.remove() else f"nothing to remove: no {ws.root}/")
    return 0
