"""The errors of the workshop's hands-on commands: each is one line the command line prints.

Usage: `raise NotSetUp("exercise skipped-range is not set up here: start it first")`
"""

from __future__ import annotations

from scenarios.errors import ScenarioError

__all__ = ["HandsOnError", "NotSetUp", "UnknownExercise", "StillRunning"]


class HandsOnError(ScenarioError):
    """Base of what an exercise or the puzzle can fail with before judging anything."""


class UnknownExercise(HandsOnError):
    """An exercise name that is not in the list."""


class NotSetUp(HandsOnError):
    """`--check`, `--hint` or `--answer` on a folder no exercise or puzzle was set up in."""


class StillRunning(HandsOnError):
    """An earlier terminal of the same exercise, or the attendee's own job, is in the way."""
