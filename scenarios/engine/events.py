"""What the stage tells whoever listens: a scenario's steps, remarks, waits and checks, as events.

The engine runs a scenario and records what happened; it does not decide how that is shown.
The narration on the terminal, the JSON report and the live page (`--web`) are listeners: the run
layer hands them to the Stage, and the Stage emits an event to each, in order, as the scenario
goes. So the engine imports nothing of the report, and a new way of showing a run is a new
listener, not a change to the engine.

A listener is any callable taking one event. It runs in the scenario's thread, and may block
(a guided run waits for Enter when a step starts).

Usage:
    heard: list[Event] = []
    with Stage("chaos", settings, root, listeners=[narrator.hear, heard.append]) as stage: ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scenarios.checker.expectations import Check
from scenarios.engine.step import Step
from scenarios.engine.timeline import Timeline

__all__ = [
    "Checked",
    "Event",
    "Listener",
    "Said",
    "StageClosed",
    "StageOpened",
    "StepEnded",
    "StepStarted",
    "Waiting",
]


@dataclass(frozen=True)
class StageOpened:
    """The scenario's folders exist; `processes` holds each process's console, as it writes it.

    For a listener that shows the run as it goes (the live page): the scenario's name, the
    timeline the stage records into, and `checkpoint(dest)`, the narrated app's checkpoint as
    a local folder to read now (the folder itself, or on a store its newest logs copied into
    `dest`, a copy of that listener's own)."""

    processes: Path
    scenario: str = ""
    timeline: Timeline | None = None
    checkpoint: Callable[[Path], Path] | None = None


@dataclass(frozen=True)
class StepStarted:
    """A step begins: its question is asked before any of its actions run."""

    step: Step
    number: int


@dataclass(frozen=True)
class Said:
    """A remark during a step: something observed, a number, a decision."""

    text: str


@dataclass(frozen=True)
class Waiting:
    """A long wait is still going on: what is awaited, and for how many seconds so far."""

    what: str
    elapsed: float


@dataclass(frozen=True)
class Checked:
    """A check was made; `check.step` names the step it belongs to."""

    check: Check


@dataclass(frozen=True)
class StepEnded:
    """A step's actions and checks are over: its answer can be given."""

    step: Step
    number: int


@dataclass(frozen=True)
class StageClosed:
    """Every process of the scenario is stopped."""


Event = StageOpened | StepStarted | Said | Waiting | Checked | StepEnded | StageClosed

Listener = Callable[[Event], None]
