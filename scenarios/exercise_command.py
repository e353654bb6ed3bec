"""`python -m scenarios exercise`: the workshop's exercises, each done by hand and checked by code.

`exercise NAME` sets up the situation in `exercise/NAME/`, prints the task and keeps Kafka and
the producer running in its terminal until Ctrl-C (as the demo does); the attendee types the
task's commands in a second terminal. `--check` judges what they produced (an answer after it
when the task asks for one), `--hint` gives one hint more each time, `--reset` removes the
folder. `--list` names the exercises with their modules; `--answers` is the trainer's sheet.
An attendee's `--check` never prints the answer. `--web` (with `exercise NAME` only) serves
the live page of `run --web` from the first terminal: the task, the attendee's job and the
checkpoint moving, less what would give an answer away (docs/web.md).

Exit codes: 0 done (or the command did what it was asked), 1 not yet, 2 for bad input or an
exercise not set up.

Usage:
    python -m scenarios exercise --list
    python -m scenarios exercise skipped-range             # terminal 1: setup, task, Kafka
    python -m scenarios exercise skipped-range --web       # the same, and a live page of it
    python -m scenarios exercise skipped-range --hint      # terminal 2
    python -m scenarios exercise skipped-range --check 12-40
    python -m scenarios exercise --answers                 # the trainer
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from launch.errors import LaunchError
from launch.hangup import stop_like_ctrl_c
from launch.leftovers import describe_leftovers, find_leftovers
from launch.platform_needs import RUN_NEEDS, require
from scenarios.engine.stacks import add_stack_options, chosen_stack
from scenarios.errors import ScenarioError
from scenarios.exercises import all_exercises, find_exercise
from scenarios.exercises.errors import NotSetUp, StillRunning
from scenarios.exercises.exercise import Attempt, Exercise, fill
from scenarios.exercises.hand_over import hand_over
from scenarios.exercises.room import hold, room, room_settings
from scenarios.exercises.workspace import EXERCISE_HOME, Setup, Workspace
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.web.live_run import live_room
from scenarios.web.options import add_web_options, web_choice
from scenarios.web.room_brief import exercise_brief

__all__ = ["main_parser", "run_exercise"]


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m scenarios exercise",
        description="The workshop's exercises: set one up (Kafka and the producer stay in this "
        "terminal), do its task in a second terminal, and check what you produced. Exit 0 "
        "done, 1 not yet, 2 for bad input.",
    )
    p.add_argument("name", nargs="?", metavar="NAME", help="the exercise (see --list)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--list", action="store_true", help="the exercises, with their modules")
    what.add_argument(
        "--check",
        nargs="?",
        const="",
        metavar="ANSWER",
        help="judge what you produced in exercise/NAME/ (and the answer, when the task asks "
        "for one)",
    )
    what.add_argument("--hint", action="store_true", help="the next hint, one more each time")
    what.add_argument("--reset", action="store_true", help="remove exercise/NAME/")
    what.add_argument(
        "--answers",
        action="store_true",
        help="for the trainer: what to type in every exercise, and the answers the folders "
        "set up here call for",
    )
    add_stack_options(p)
    add_web_options(p)
    return p


def run_exercise(argv: Sequence[str]) -> int:
    parser = main_parser()
    args = parser.parse_args(list(argv))
    try:
        if web_choice(args) is not None and (
            args.list or args.answers or args.hint or args.reset or args.check is not None
        ):
            raise ScenarioError(
                "--web goes with setting an exercise up (exercise NAME --web): its first "
                "terminal serves the page while the room works in a second"
            )
        if args.list:
            return _list()
        if args.answers:
            return _answers()
        if args.name is None:
            parser.error("name an exercise (or --list)")
        exercise = find_exercise(args.name)
        ws = Workspace(EXERCISE_HOME / exercise.name)
        if args.check is not None:
            return _check(exercise, ws, args.check or None)
        if args.hint:
            return _hint(exercise, ws)
        if args.reset:
            return _reset(ws)
        return _set_up(exercise, ws, args)
    except KeyboardInterrupt:
        print(
            "[exercise] stopped: Kafka and the producer are down; the folder stays for --check",
            file=sys.stderr,
        )
        return 0
    except (ScenarioError, LaunchError) as error:
        print(f"exercise: {error}", file=sys.stderr)
        return 2


def _list() -> int:
    exercises = all_exercises()
    width = max(len(e.name) for e in exercises)
    for e in exercises:
        answer = f" (--check {e.answer_form})" if e.answer_form else ""
        print(f"module {e.module}  {e.name:{width}}  {e.title}{answer}; about {e.minutes:g} min")
    return 0


def _say(text: str) -> None:
    print(f"[exercise] {text}", flush=True)


def _set_up(exercise: Exercise, ws: Workspace, args: argparse.Namespace) -> int:
    require("python -m scenarios exercise", RUN_NEEDS)
    stop_like_ctrl_c()
    settings = room_settings(chosen_stack(args))
    prefetch_jars(settings, _say)
    _say(f"setting up {exercise.name} in {ws.root}/ (about a minute)")
    with (
        live_room(web_choice(args), exercise_brief(exercise)) as page,
        room(f"exercise-{exercise.name}", ws, settings, _say, listeners=page.listeners) as stage,
    ):
        setup = hand_over(exercise, stage, ws, settings)
        for line in task_lines(exercise, ws, setup):
            print(line, flush=True)
        page.handed_over([fill(step, ws, setup, exercise.name) for step in exercise.task])
        hold(stage, _say)
    return 0


def task_lines(exercise: Exercise, ws: Workspace, setup: Setup) -> list[str]:
    """The task as the first terminal prints it, once the setup is done."""
    name = exercise.name
    lines = [
        "",
        f"== exercise {name} (module {exercise.module}): {exercise.title}",
        "",
        fill(exercise.situation, ws, setup, name),
        "",
        "Your task, in a second terminal in this folder:",
    ]
    lines += [
        f"  {n}. {fill(step, ws, setup, name)}" for n, step in enumerate(exercise.task, start=1)
    ]
    lines += [
        "",
        f"The job, {ws.app_script}, starts: uv run python -m spark_app " + " ".join(setup.app_args),
        f"A hint, one more each time: uv run python -m scenarios exercise {name} --hint",
        "Kafka and the producer keep running here until Ctrl-C; the folder stays for --check.",
        "",
    ]
    return lines


def _check(exercise: Exercise, ws: Workspace, answer: str | None) -> int:
    setup = _loaded(exercise, ws)
    verdict = exercise.judge(Attempt(ws, setup, answer))
    print(f"exercise {exercise.name}: {'DONE' if verdict.done else 'not yet'}")
    for line in verdict.lines:
        print(f"  {line}")
    return 0 if verdict.done else 1


def _hint(exercise: Exercise, ws: Workspace) -> int:
    setup = _loaded(exercise, ws)
    number = ws.next_hint(len(exercise.hints))
    hint = fill(exercise.hints[number], ws, setup, exercise.name)
    print(f"hint {number + 1} of {len(exercise.hints)}: {hint}")
    return 0


def _reset(ws: Workspace) -> int:
    found = find_leftovers([ws.log, ws.checkpoints], [])
    if found:
        raise StillRunning(f"{ws.root}/ is in use: {describe_leftovers(found)}; stop that first")
    print(f"removed {ws.root}/" if ws.remove() else f"nothing to remove: no {ws.root}/")
    return 0


def _answers() -> int:
    for exercise in all_exercises():
        ws = Workspace(EXERCISE_HOME / exercise.name)
        setup = ws.load() if ws.exists else None
        print(f"== {exercise.name} (module {exercise.module}): {exercise.title}")
        for line in exercise.solution:
            print(f"  {fill(line, ws, setup, exercise.name)}")
        if exercise.expected is not None:
            answer = (
                exercise.expected(Attempt(ws, setup))
                if setup is not None
                else "set it up first: the answer depends on the run"
            )
            print(f"  answer in {ws.root}/: {answer}")
        print()
    return 0


def _loaded(exercise: Exercise, ws: Workspace) -> Setup:
    if not ws.exists:
        raise NotSetUp(
            f"exercise {exercise.name} is not set up here (no {ws.setup_file}): start it "
            f"first, in another terminal: uv run python -m scenarios exercise {exercise.name}"
        )
    return ws.load()
