"""The workshop's exercises, one module per exercise, one exercise per module of the day from 3 on.

Each module holds `EXERCISE = Exercise(...)` (exercise.py): a setup that builds the situation
with a Stage in the exercise's own folder, the task the attendee does by hand in a second
terminal, hints, and a judge of what they produced. `room.py` is the first terminal (Kafka and
the producer kept running, as the demo keeps them), `workspace.py` the folder and the job,
`history.py` the output log across a reset. The puzzle (scenarios/puzzle/) uses the same three.

Usage: `for exercise in all_exercises(): print(exercise.module, exercise.name)`
"""

from __future__ import annotations

import importlib

from scenarios.exercises.errors import UnknownExercise
from scenarios.exercises.exercise import Exercise

__all__ = ["EXERCISE_MODULES", "all_exercises", "find_exercise"]

# In the order of the day's modules.
EXERCISE_MODULES = (
    "scenarios.exercises.skipped_range",
    "scenarios.exercises.reset_from_offsets",
    "scenarios.exercises.fix_forward",
    "scenarios.exercises.count_the_doubles",
    "scenarios.exercises.allowed_change",
    "scenarios.exercises.count_at_batch",
    "scenarios.exercises.capped_backlog",
)


def all_exercises() -> list[Exercise]:
    return [importlib.import_module(module).EXERCISE for module in EXERCISE_MODULES]


def find_exercise(name: str) -> Exercise:
    known = {e.name: e for e in all_exercises()}
    if name not in known:
        raise UnknownExercise(
            f"no exercise named {name}; known: {', '.join(known)} (exercise --list)"
        )
    return known[name]
