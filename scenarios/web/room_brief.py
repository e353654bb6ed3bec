"""What the live page of an exercise or the puzzle says of it, and what it keeps back: plain data,
made whether or not `--web` was given (so it imports nothing of the server).

An exercise's page is headed by its name, module and title; the puzzle's by its seed alone (the
fault's name is the trainer's). One that asks the room for an answer (`--check ANSWER`: a range,
a count) withholds the parts of the page that hold it, and the puzzle withholds what would name
its fault and shows nothing of its setup (`quiet`).

Usage:
    brief = exercise_brief(find_exercise("skipped-range"))
    brief = puzzle_brief(7)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands hand one in; importing it here would load every exercise
    from scenarios.exercises.exercise import Exercise

__all__ = ["RoomBrief", "exercise_brief", "puzzle_brief"]


@dataclass(frozen=True)
class RoomBrief:
    """The page's heading, its words while the setup runs and once it is handed over, and
    why parts are withheld ("" when none is)."""

    title: str
    subtitle: str
    setting_up: str
    task_heading: str
    withhold: str = ""
    # The puzzle: no remark of the setup, nothing read before the hand-over, and only the
    # batches written after it (the setup's history and the broken checkpoint name the fault).
    quiet: bool = False


def exercise_brief(exercise: Exercise) -> RoomBrief:
    withhold = (
        f"withheld: Kafka's offsets, the batches' ranges and the output's numbers would give "
        f"away this exercise's answer (--check {exercise.answer_form})"
        if exercise.answer_form
        else ""
    )
    return RoomBrief(
        title=f"exercise {exercise.name}",
        subtitle=f"module {exercise.module} · {exercise.title}",
        setting_up="Setting up the exercise (about a minute)",
        task_heading="Your task, in a second terminal",
        withhold=withhold,
    )


def puzzle_brief(seed: int) -> RoomBrief:
    return RoomBrief(
        title=f"puzzle {seed}",
        subtitle="a checkpoint and its job that will not restart correctly",
        setting_up="Setting up the puzzle (a minute or two)",
        task_heading="The puzzle",
        withhold=(
            "withheld: Kafka's offsets, the batches' ranges, the state and the history would "
            "name the fault; diagnose it in a terminal"
        ),
        quiet=True,
    )
