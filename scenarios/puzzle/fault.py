"""What a puzzle fault declares: how it breaks the job, what the attendee sees, the best repair.

A fault's `setup(stage)` runs the job on a new checkpoint, stops it, and breaks it; it returns
what it saw (the facts the check holds the repaired job to). `job_options` is the job handed
over (a release the checkpoint refuses), `unavoidable(facts)` the values no repair brings back
(what retention deleted before anyone looked), and `new_stream` says that the best repair is a
new checkpoint, whose count starts over at the first value of a new stream, by design.

The words (`sees`, `best`, `wrong`) are the trainer's, for `puzzle --answer S`; the attendee's
`--check` never prints them.

Usage:
    Fault("torn-offsets", "…", setup=tear_the_plan, sees=("…",), best=("…",), wrong=("…",))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scenarios.checker.verify import ValueRange
from scenarios.engine.stage import Stage

__all__ = ["Fault", "nothing_lost"]


def nothing_lost(facts: Mapping[str, Any]) -> tuple[ValueRange, ...]:
    return ()


@dataclass(frozen=True)
class Fault:
    """One way the puzzle's job no longer restarts correctly, and its best repair."""

    name: str
    title: str  # the trainer's one line
    setup: Callable[[Stage], dict[str, Any]]
    sees: tuple[str, ...]  # what diagnosis finds: the app's line, inspect, the cheat-sheet's row
    best: tuple[str, ...]  # the best repair, as commands
    wrong: tuple[str, ...]  # tempting repairs, and what --check says of them
    job_options: Mapping[str, Any] = field(default_factory=dict)
    unavoidable: Callable[[Mapping[str, Any]], tuple[ValueRange, ...]] = nothing_lost
    new_stream: bool = False
