"""What an exercise declares: its setup, the task, its hints, how it is judged, and its answer.

An exercise module holds `EXERCISE = Exercise(...)`. Its `setup(stage)` builds the situation
with a Stage (scenarios/engine/stage/) in the exercise's folder and returns what it saw (the
facts the judge holds the attendee's result to); `judge(attempt)` reads what the attendee
produced (the output log, the checkpoint, spark.log, or an answer given with `--check ANSWER`)
and says done or not yet, in lines that never state the answer. `solution` is the trainer's:
what to type; `expected(attempt)`, for an exercise that takes an answer, the answer this
folder's run calls for, for the trainer only (`exercise --answers`).

The task's lines name the attendee's commands with placeholders filled from the folder:
`{app}` (the job), `{inspect}`, `{reset}`, `{verify}`, `{check}`, `{log}`, `{spark_log}`,
`{checkpoints}`, `{name}`, and any fact of the setup (`{processed}`).

Usage:
    EXERCISE = Exercise("skipped-range", 3, "…", 8.0, situation="…", task=("…",), hints=("…",),
                        solution=("…",), setup=setup, judge=judge, answer_form="FROM-UNTIL")
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scenarios.checker.verify import VerifyReport, verify_file
from scenarios.engine.stage import Stage
from scenarios.exercises.history import output_history
from scenarios.exercises.workspace import Setup, Workspace
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint
from spark_app.errors import CheckpointError

__all__ = ["Attempt", "Exercise", "Verdict", "fill"]


@dataclass(frozen=True)
class Verdict:
    """Done or not yet, and why, in lines for the attendee (never the answer itself)."""

    done: bool
    lines: tuple[str, ...]

    @classmethod
    def not_yet(cls, *lines: str) -> Verdict:
        return cls(False, lines)

    @classmethod
    def passed(cls, *lines: str) -> Verdict:
        return cls(True, lines)


@dataclass(frozen=True)
class Attempt:
    """What the attendee produced in the exercise's folder, and the setup it started from."""

    ws: Workspace
    setup: Setup
    answer: str | None = None

    @property
    def facts(self) -> Mapping[str, Any]:
        return self.setup.facts

    def output(self) -> VerifyReport | None:
        """The output log as it is now (None when there is none)."""
        return verify_file(self.ws.output_log) if self.ws.output_log.is_file() else None

    def history(self) -> VerifyReport:
        """The setup's output and what came after it, a reset's moved-aside log included."""
        return output_history(self.ws)

    def checkpoint(self) -> CheckpointInfo | None:
        """The checkpoint as it is now; None when it cannot be read (a torn file)."""
        try:
            return read_checkpoint(self.ws.checkpoints)
        except CheckpointError:
            return None

    def spark_log(self) -> str:
        path = self.ws.spark_log
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""

    def same_query(self) -> bool:
        """Whether the checkpoint is still the setup's query (not deleted and started anew)."""
        info = self.checkpoint()
        return info is not None and info.query_id == self.facts.get("query_id")


@dataclass(frozen=True)
class Exercise:
    """One exercise: the situation a setup builds, the task, the hints, the judge."""

    name: str
    module: int  # the workshop module it ends (docs/workshop.md)
    title: str  # what the attendee does, in a line
    minutes: float  # stated: the room's time for it, setup, doing and --check
    situation: str
    task: tuple[str, ...]
    hints: tuple[str, ...]
    solution: tuple[str, ...]
    setup: Callable[[Stage], dict[str, Any]]
    judge: Callable[[Attempt], Verdict]
    # What `--check` takes, e.g. "FROM-UNTIL"; "" when it judges the folder alone.
    answer_form: str = ""
    expected: Callable[[Attempt], str] | None = None
    # The job's own settings beyond the folder's (a crash-always release, a slow store).
    job_options: Mapping[str, Any] = field(default_factory=dict)


class _Shown(dict[str, Any]):
    """Placeholders the folder cannot fill yet (no setup) are shown as `<name>`."""

    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def fill(text: str, ws: Workspace, setup: Setup | None, name: str) -> str:
    """The task's placeholders filled from the folder and the setup's facts; before a setup,
    what only the setup knows is shown as `<name>` (the trainer's sheet, ahead of the day)."""
    values = _Shown(
        app=ws.app_words(),
        reset=ws.reset_words(),
        verify=ws.verify_words(),
        check=f"uv run python -m scenarios exercise {name} --check",
        log=ws.output_log,
        spark_log=ws.spark_log,
        checkpoints=ws.checkpoints,
        name=name,
        folder=ws.root,
    )
    if setup is not None:
        values.update(setup.facts, inspect=ws.inspect_words(setup))
    else:
        values["inspect"] = ws.inspect_words(None)
    return text.format_map(values)
