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
    with Stage("endless-retention", settings, narrator, root) as stage:
        stage.kafka.start(retention_sec=3600)
        stage.app.start()
        stage.output.wait_for_value(10)
        stage.finish_exactly_once()
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from launch.folders import Folders
from launch.group import ProcessGroup
from scenarios.checker.expectations import Check, exactly_once
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
from scenarios.report.narration import Narrator, Step
from scenarios.report.timeline import Timeline
from spark_app.runtime.session import sweep_dead_sessions

__all__ = [
    "AppPart",
    "BrokersPart",
    "DiskPart",
    "KafkaPart",
    "NetworkPart",
    "OutputPart",
    "Stage",
    "StorePart",
    "TopicRecord",
]


class Stage:
    """Folders, parts, narration and checks of one scenario run (a context manager)."""

    def __init__(self, name: str, settings: RunSettings, narrator: Narrator, root: Path) -> None:
        self.name = name
        self.settings = settings
        self.timings = settings.timings
        self.narrator = narrator
        self.folders = Folders(root)
        # The checkpoint the timeline's green line follows: the narrated app's latest start.
        self.shown_checkpoints = self.folders.checkpoints
        self.timeline = Timeline()
        self.checks: list[Check] = []
        self.phase = ""  # the current step's (Step.phase): the checks made during it carry it
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
        self.narrator.follow(self.folders.processes)  # their latest lines, live on a terminal
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Answer the last step, stop every process, then Kafka's helpers (idempotent)."""
        self.narrator.end_step()
        self.narrator.follow(None)
        try:
            self.store.stop()  # first, gently: SIGTERM lets it remove its data
            self.group.stop()
            sweep_dead_sessions()  # the temporary folders of the apps it killed
        finally:
            self.disk.close()  # after every process that could write there
            self.timeline.app_down()
            self.kafka.close()
            self.store.remove_view()  # after the timeline's sampler, its reader

    # -- narration and checks -------------------------------------------------------------------
    def step(self, step: Step) -> None:
        self.phase = step.phase
        self.narrator.step(step)

    def say(self, text: str) -> None:
        self.narrator.say(text)

    def expect(self, check: Check, phase: str | None = None) -> bool:
        """Record a check (its name prefixed with the phase: the current step's unless given)
        and narrate it."""
        phase = self.phase if phase is None else phase
        named = replace(check, name=f"{phase}: {check.name}" if phase else check.name)
        self.checks.append(named)
        self.narrator.check(named.name, named.held, named.detail)
        return named.held

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
        message sent exactly once (phase "final"); returns how many were sent."""
        total = self.stop_producer_and_drain()
        self.app.stop()
        self.expect(exactly_once(self.output.verify_sent(), total), phase="final")
        return total

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
