"""The world one scenario runs in: its folders, its parts, its narration, its checks.

A scenario module receives a `Stage` and tells its story with the stage's parts:

- `stage.kafka`: start (a broker of the run's kind and the producer), stop the producer,
  retention, offsets, a negative key, partitions added, the topic recreated;
- `stage.app`: the Spark app (with the run's Kafka source): start, kill, stop, wait for its exit,
  its console output; `stage.app.beside(name)` for a second one;
- `stage.brokers`: the nodes of a cluster (`stage.kafka.start(..., brokers=3)`): who leads,
  kill, stop and start one;
- `stage.network`: cut and restore the link between the app and Kafka;
- `stage.store`: the checkpoint store of the run (`--checkpoint-store hdfs|s3`), started before
  the first app and stopped last; behind a proxy the scenario can cut;
- `stage.disk`: a small tmpfs mounted on a folder (root only), filled and freed;
- `stage.output`: verify the output log, against what was sent too, and wait for a value,
  messages or batches.

Each part exists from the start and says in one sentence (StepFailed) what to start first when
a scenario uses it too early. Everything started is stopped when the stage closes, whatever
happened.

Usage:
    with Stage("endless-retention", settings, root, listeners=[narrator.hear]) as stage:
        with stage.step(Step("Start Kafka and the producer", happens="…")):
            stage.kafka.start(retention_sec=3600)
        with stage.step(Step("Start the Spark app", happens="…")):
            stage.app.start()
            stage.output.wait_for_value(10)
        with stage.step(Step("Stop the producer, let the app catch up", happens="…")):
            stage.finish_exactly_once()

A step carries its checks: a check made inside `with stage.step(...)` belongs to that step
(`Check.step`), and the step's answer follows them. The stage tells its listeners
(scenarios/engine/events.py) what happens; it shows nothing itself.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from launch.folders import Folders
from launch.group import ProcessGroup
from scenarios.checker.expectations import Check, check, exactly_once
from scenarios.engine.events import (
    Checked,
    Event,
    Listener,
    Said,
    StageClosed,
    StageOpened,
    StepEnded,
    StepStarted,
    Waiting,
)
from scenarios.engine.observers.kafka_probe import OffsetWindow
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.engine.stage.app import AppPart
from scenarios.engine.stage.brokers import BrokersPart
from scenarios.engine.stage.disk import DiskPart
from scenarios.engine.stage.kafka import KafkaPart, TopicRecord
from scenarios.engine.stage.network import NetworkPart
from scenarios.engine.stage.output import OutputPart
from scenarios.engine.stage.store import StorePart
from scenarios.engine.stage.time_spent import TimeSpent
from scenarios.engine.step import Step
from scenarios.engine.timeline import Timeline
from spark_app.runtime.session import sweep_dead_sessions

__all__ = [
    "AppPart",
    "BrokersPart",
    "DiskPart",
    "KafkaPart",
    "NetworkPart",
    "OutputPart",
    "Stage",
    "StepBlock",
    "StorePart",
    "TopicRecord",
]


class StepBlock:
    """The `with` block of one step: ends the step when the block ends, however it ends."""

    def __init__(self, stage: Stage, step: Step) -> None:
        self._stage, self.step = stage, step

    def __enter__(self) -> Step:
        return self.step

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        self._stage.end_step(self.step, finished=exc_type is None)


class Stage:
    """Folders, parts, steps and checks of one scenario run (a context manager)."""

    def __init__(
        self, name: str, settings: RunSettings, root: Path, listeners: Sequence[Listener] = ()
    ) -> None:
        self.name = name
        self.settings = settings
        self.timings = settings.timings
        self.listeners = list(listeners)
        self.folders = Folders(root)
        # The checkpoint the timeline's green line follows: the narrated app's latest start.
        self.shown_checkpoints = self.folders.checkpoints
        self.timeline = Timeline()
        self.checks: list[Check] = []
        self._step: Step | None = None  # the step running now: its checks belong to it
        self._finished: list[Step] = []  # the steps that ran to their end
        self._steps = 0
        self.facts: dict[str, Any] = {}
        self.spent = TimeSpent()  # Kafka and Spark starts, stops: benchmarks/run_profile.py
        self.group = ProcessGroup(
            self.folders.processes, cwd=root, env={"PYTHONPATH": str(PROJECT_ROOT)}
        )
        self.kafka = KafkaPart(self)
        self.brokers = BrokersPart(self)
        self.app = AppPart(self, self.folders)
        self.network = NetworkPart(self)
        self.store = StorePart(self)
        self.disk = DiskPart(self)
        self.output = OutputPart(self, self.app)

    # -- life cycle -----------------------------------------------------------------------------
    def __enter__(self) -> Stage:
        if self.folders.root.exists():
            shutil.rmtree(self.folders.root)  # every run starts from nothing
        for folder in (self.folders.log, self.folders.processes):
            folder.mkdir(parents=True)
        self.emit(
            StageOpened(
                self.folders.processes,
                scenario=self.name,
                timeline=self.timeline,
                checkpoint=self.checkpoint_view,
            )
        )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self._end_step()
            self._hold_answers_to_their_checks()
        self.close()

    def close(self) -> None:
        """End the last step, stop every process, then Kafka's helpers (idempotent)."""
        self._end_step()
        try:
            self.store.stop()  # first, gently: SIGTERM lets it remove its data
            self.group.stop()
            sweep_dead_sessions()  # the temporary folders of the apps it killed
        finally:
            self.disk.close()  # after every process that could write there
            self.timeline.app_down()
            self.kafka.close()
            self.store.remove_view()  # after the timeline's sampler, its reader
            self.emit(StageClosed())

    def checkpoint_view(self, dest: Path) -> Path:
        """The narrated app's checkpoint as a local folder to read now: the folder itself, or
        on a store its newest logs copied into `dest` (through the store's HTTP API, no JVM).
        A reader of its own gives its own `dest`: the timeline's sampler copies into another."""
        return self.store.logs_view(self.shown_checkpoints, dest)

    # -- steps, remarks and checks ---------------------------------------------------------------
    def emit(self, event: Event) -> None:
        """Tell every listener, in the order they were given."""
        for listener in self.listeners:
            listener(event)

    def step(self, step: Step) -> StepBlock:
        """`with stage.step(Step(...)):` runs the block as that step: its question is asked
        first (here, before the block), the checks made in the block belong to it, and its
        answer follows them when the block ends."""
        self._end_step()  # a step is never inside another: the one before ends here
        self._steps += 1
        self._step = step
        self.emit(StepStarted(step, self._steps))
        return StepBlock(self, step)

    @property
    def current_step(self) -> Step | None:
        """The step running now (None between steps)."""
        return self._step

    def end_step(self, step: Step, finished: bool = True) -> None:
        """End `step` if it is still the one running (a `with` block's end). A step that ran to
        its end must have made every check its answer names (`Step.checks`)."""
        if self._step is not step:
            return
        if finished:
            self._finished.append(step)
        self._end_step()

    def _hold_answers_to_their_checks(self) -> None:
        """Every step that ran to its end made the checks its answer names (some are made in a
        later step, `expect(..., step=...)`: so this is asked once the scenario has ended).
        Not with a user's query: the answers speak of the counter, whose checks the oracle's
        at the end replaces."""
        if self.settings.query is not None:
            return
        for step in self._finished:
            made = {c.name for c in self.checks if c.step == step.title}
            for name in step.checks or ():
                if name not in made:
                    self.expect(
                        check(
                            f"the answer's check was made: {name}",
                            False,
                            "a check of that name for this step",
                            "none: the answer claims a check the code did not make",
                        ),
                        step=step,
                    )

    def _end_step(self) -> None:
        if self._step is not None:
            step, self._step = self._step, None
            self.emit(StepEnded(step, self._steps))

    def say(self, text: str) -> None:
        self.emit(Said(text))

    def waiting(self, what: str, elapsed: float) -> None:
        """Progress of a long wait (a `Progress` for launch's and the parts' waits)."""
        self.emit(Waiting(what, elapsed))

    def expect(self, check: Check, step: Step | None = None) -> bool:
        """Record a check as the running step's (or `step`'s, for the rare check that belongs
        to another step than the one it is made in) and tell the listeners; whether it held."""
        owner = step if step is not None else self._step
        made = replace(check, step=owner.title if owner is not None else "")
        self.checks.append(made)
        self.emit(Checked(made))
        return made.held

    def fact(self, key: str, value: Any) -> Any:
        """Remember a number the scenario predicted or observed (goes into the JSON report)."""
        self.facts[key] = value
        return value

    # -- steps that take several parts ----------------------------------------------------------
    def stop_producer_and_drain(self) -> int:
        """Stop the producer and wait until the app wrote the last message; how many were sent."""
        total = self.fact("messages_sent", self.kafka.stop_producer().latest)
        self.say(f"the producer stopped after {total} messages")
        self.output.wait_for_value(total)
        return total

    def catch_up(self, latest: int | None = None) -> int:
        """Wait until the app has written and committed everything up to `latest` (Kafka's
        latest offset by default); the offset waited for.

        Waiting for the commit too means a stop right after does not leave that batch pending.
        """
        target = latest if latest is not None else self.kafka.window().latest
        self.output.wait_for_value(target)
        self.app.wait_while_up(
            lambda: (self.app.committed_offset() or 0) >= target,
            f"the checkpoint to commit offset {target}",
            poll=0.1,
        )
        return target

    def finish_exactly_once(self) -> int:
        """The usual ending: stop the producer, let the app drain, stop it, and expect every
        message sent exactly once; returns how many were sent. With a user's query module the
        oracle judges its rows against every record sent (`output.judge_query`)."""
        total = self.stop_producer_and_drain()
        self.app.stop()
        if self.settings.query is None:
            self.expect(exactly_once(self.output.verify_sent(), total))
            return total
        verdict = self.output.judge_query()
        self.expect(
            check(
                "exactly once",
                verdict.ok,
                f"the query's rows as its batch result over all {total} messages sent",
                "; ".join(verdict.summary_lines()),
            )
        )
        return total

    @property
    def query(self) -> Path | None:
        """A user's query module the run's apps run instead of the counter (`run --query`)."""
        return self.settings.query

    def start_app_and_see_first_value(
        self, **options: Any
    ) -> tuple[int, OffsetWindow, OffsetWindow]:
        """Start the app; return the first value it writes and Kafka's offsets around its start.

        The app fixes where it starts reading while it starts up. Kafka's offsets read just
        before the start and when the first value shows up bound that position from both sides.
        """
        before_messages = self.output.verify().messages
        before = self.kafka.window()
        self.app.start(**options)
        report = self.output.wait_for_messages(before_messages + 1)
        after = self.kafka.window()
        first = report.values[before_messages]
        self.say(
            f"first value written: {first}; Kafka's offsets were {before.earliest}:"
            f"{before.latest} before the start, {after.earliest}:{after.latest} when it showed up"
        )
        return first, before, after
