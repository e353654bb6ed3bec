"""The stage's app: the Spark app, started, killed, stopped and restarted on one checkpoint.

A scenario asks for "the app", never for one Kafka source by name: which source it reads with
is the run's setting (`RunSettings.source`), read here and nowhere else, as is the PySpark
interpreter it runs on. `beside(name)` gives a second app with folders of its own (the
upgrade's green) on the same Kafka.

Usage:
    stage.app.start(sink="at-least-once")
    stage.app.kill()
    code = stage.app.wait_exit(kind="crash")
    stage.app.pause(); ...; stage.app.resume()     # SIGSTOP, SIGCONT: a long GC pause
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from launch.errors import ProcessError
from launch.folders import Folders
from launch.process import ManagedProcess, wait_while_alive
from launch.spark import SparkLauncher
from scenarios.checker.expectations import check
from scenarios.engine.observers.sampler import committed_offset, planned_offset
from scenarios.errors import StepFailed
from spark_app.errors import DataLossError, error_in_text
from spark_app.lines.batch_line import lag_in_output
from spark_app.lines.known_spark_bugs import AFFECTED_LINE, TICKET, replay_bug_in
from spark_app.settings import SPARK_LOG_FILE_NAME

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["AppPart"]

T = TypeVar("T")


class AppPart:
    """One Spark app of the scenario; every step but `start` needs it started once."""

    def __init__(
        self,
        stage: Stage,
        folders: Folders,
        name: str = "spark",
        label: str = "the Spark app",
        narrated: bool | None = None,
    ) -> None:
        self._stage = stage
        self.folders = folders
        self.name, self.label = name, label
        self._speaks = name == "spark" if narrated is None else narrated
        self._launcher: SparkLauncher | None = None
        self._options: dict[str, Any] = {}
        self._paused: ManagedProcess | None = None  # stopped with SIGSTOP, not yet continued

    # -- life cycle ---------------------------------------------------------------------------
    def start(self, **options: Any) -> ManagedProcess:
        """Start (again) on the same checkpoint, with `options` changed in its settings (e.g.
        `sink="at-least-once"`; `python=` runs it on another PySpark's interpreter)."""
        launcher = self._launcher or self._new_launcher()
        self._launcher = launcher
        self._options = options
        process = launcher.start(**options)
        if self.folders == self._stage.folders:  # the scenario's own app: its starts are profiled
            self._stage.spent.launched()
        if self._narrated:
            # Another PySpark's interpreter (spark-upgrade) is named by the scenario's own steps.
            shown = " ".join(f"{k}={v}" for k, v in options.items() if k != "python")
            timeline = self._stage.timeline
            # An app named for what it shows (a store) is labelled by name: its options would
            # not fit a label on the picture.
            who = "" if self.name == "spark" else f"{self.name} "
            timeline.event(
                f"{who}start {launcher.starts}" + (f" ({shown})" if shown and not who else ""),
                "start",
            )
            self._stage.shown_checkpoints = self.folders.checkpoints
            timeline.app_up()
            self._stage.say(
                f"Spark app {who}started (run {launcher.starts}, pid {process.pid}) "
                f"{shown}".rstrip()
            )
        return process

    def _new_launcher(self) -> SparkLauncher:
        kafka, settings = self._stage.kafka, self._stage.settings
        if not kafka.started:
            raise StepFailed(f"start Kafka before {self.label}: call stage.kafka.start() first")
        self._stage.store.start()
        return SparkLauncher(
            self._stage.group,
            self.folders,
            kafka.app_bootstrap_servers,
            kafka.topic,
            self._stage.timings.trigger_sec,
            python=settings.spark_python,
            name=self.name,
            source=settings.source,
            checkpoint=self._stage.store.place(self.folders.checkpoints),
            query=settings.query,
            connect=settings.connect,
        )

    @property
    def _narrated(self) -> bool:
        """The scenario's own app speaks and draws on the timeline; one beside it does not,
        unless it takes the main app's place (`narrated=True`: one app per store, in turn)."""
        return self._speaks

    def beside(self, name: str, narrated: bool = False) -> AppPart:
        """A second app on the same Kafka, with folders of its own under the run's folder;
        `narrated`: it speaks and draws on the timeline as the scenario's own app does."""
        return AppPart(
            self._stage,
            Folders(self._stage.folders.root / name),
            name=name,
            label=name,
            narrated=narrated,
        )

    @property
    def process(self) -> ManagedProcess:
        """The process of the latest start."""
        if self._launcher is None or self._launcher.current is None:
            raise StepFailed(
                f"{self.label} has not been started in this scenario: call start() first"
            )
        return self._launcher.current

    @property
    def running(self) -> bool:
        return (
            self._launcher is not None
            and self._launcher.current is not None
            and self._launcher.current.running
        )

    def kill(self) -> None:
        """kill -9 of the app's whole process group (driver, JVM, Python workers)."""
        process = self.process
        process.kill()
        self._went_down("kill -9", "kill")
        if self._narrated:
            self._stage.say(f"kill -9 of the Spark app's process group (pid {process.pid})")

    def pause(self) -> None:
        """SIGSTOP of the app's whole process group (driver, JVM, Python workers): every thread
        stands still, as in a long GC pause, and the process stays alive; `resume()` ends it."""
        process = self.process
        _signal_group(process, signal.SIGSTOP)
        self._paused = process
        if self._narrated:
            self._stage.timeline.event("SIGSTOP", "stop")
            self._stage.say(f"SIGSTOP of the Spark app's process group (pid {process.pid})")

    def resume(self) -> None:
        """SIGCONT of a paused app's process group (idempotent): it goes on where it stood. The
        nemesis calls it however a run ends, so no process is left stopped."""
        process, self._paused = self._paused, None
        if process is None:
            return
        _signal_group(process, signal.SIGCONT)
        if self._narrated:
            self._stage.timeline.event("SIGCONT", "start")
            self._stage.say(f"SIGCONT of the Spark app's process group (pid {process.pid})")

    @property
    def paused(self) -> bool:
        return self._paused is not None

    def stop(self, timeout: float = 120.0) -> int | None:
        """SIGTERM: the app stops its query cleanly and exits 0."""
        process = self.process
        with self._stage.spent.timed("spark stop"):
            code = process.terminate(timeout=timeout)
        self._note_lag(process)
        self._went_down("SIGTERM", "stop")
        if self._narrated:
            self._stage.say(f"the Spark app stopped on SIGTERM with exit code {code}")
        else:
            self._stage.timeline.event(f"{self.name} stopped", "stop")
            self._stage.say(f"{self.name} stopped on SIGTERM with exit code {code}")
        return code

    def wait_exit(self, timeout: float | None = None, kind: str = "exit") -> int:
        """Wait for the app to end by itself (a crash, a refusal); returns its exit code."""
        process = self.process
        code = process.wait_exit(
            timeout or self._stage.timings.spark_start_timeout_sec,
            progress=self._stage.waiting,
        )
        self._note_lag(process)
        self._went_down(f"exit {code}", "crash" if kind == "crash" else "exit")
        self._stage.say(
            f"{'the Spark app' if self._narrated else self.name} exited with code {code}"
        )
        return code

    def _went_down(self, event: str, kind: str) -> None:
        if self._narrated:
            self._stage.timeline.event(event, kind)
            self._stage.timeline.app_down()

    def _note_lag(self, process: ManagedProcess) -> None:
        """The largest lag (maxOffsetsBehindLatest) any batch of any run showed, for the report."""
        lags = lag_in_output(process.output())
        if lags and self._narrated:
            facts = self._stage.facts
            seen = max(max(lags.values()), facts.get("max_offsets_behind_latest", 0))
            self._stage.fact("max_offsets_behind_latest", seen)

    # -- what it printed ------------------------------------------------------------------------
    def output(self, since: int = 0) -> str:
        """What the latest start printed (from byte `since`, a `mark()`)."""
        return self.process.output(since)

    def mark(self) -> int:
        return self.process.mark()

    def last_words(self) -> str:
        """What an app that died said last, with a hint when its own retention overtook it."""
        tail = self.process.tail(2)
        if isinstance(error_in_text(tail), DataLossError):
            tail += (
                "\n(retention deleted offsets the running app had planned to read: its "
                "batches take longer than retention on this machine; run without --fast, or "
                "on a less busy machine)"
            )
        return tail

    def wait_while_up(
        self,
        condition: Callable[[], T | None],
        what: str,
        timeout: float | None = None,
        poll: float = 0.3,
    ) -> T:
        """Wait for `condition` while the app runs; its death fails the step at once, unless it
        died of Spark 4.1's known connector bug after committing: then it is started again once."""

        def wait() -> T:
            return wait_while_alive(
                self.process,
                condition,
                what=what,
                poll=poll,
                timeout=timeout or self._stage.timings.spark_start_timeout_sec,
                progress=self._stage.waiting,
                name=self.label,
                last_words=self.last_words,
            )

        try:
            return wait()
        except ProcessError:
            if not self._restarted_after_known_bug():
                raise
            return wait()

    def _restarted_after_known_bug(self) -> bool:
        """Spark 4.1.1's connector fails the trigger that replays a pending batch, after its
        commit (spark_app/lines/known_spark_bugs.py): expected on that line, a finding anywhere else.
        Either way the app is started again, as its line says, so the scenario's own checks
        still run."""
        bug = replay_bug_in(self.process.output())
        if bug is None or not bug.committed:
            return False
        self._went_down(f"exit ({TICKET})", "crash")
        self._stage.expect(
            check(
                f"Spark's connector bug on a replayed batch ({TICKET})",
                bug.expected,
                f"only on Spark {AFFECTED_LINE}.x, the batch committed",
                f"met on Spark {bug.spark_version}, the batch committed",
            )
        )
        self._stage.say(
            f"Spark {bug.spark_version}'s connector failed after replaying the "
            f"pending batch, which it committed ({TICKET}); starting the app again, "
            f"as its line says"
        )
        self.start(**self._options)
        return True

    # -- its spark.log ---------------------------------------------------------------------------
    @property
    def spark_log_path(self) -> Path:
        """Where the app writes Spark's log (the app's name for it, in its log folder)."""
        return self.folders.log / SPARK_LOG_FILE_NAME

    def spark_log(self) -> str:
        """spark.log's text so far; "" before the app has written one."""
        path = self.spark_log_path
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    # -- its checkpoint -------------------------------------------------------------------------
    def checkpoint_view(self) -> Path:
        """The checkpoint as a folder to read: the app's own, or a copy of the store's made now
        (a snapshot: take it again after the app moved on)."""
        return self._stage.store.checkpoint_copy(
            self.folders.checkpoints, self.folders.root / "checkpoint-copy"
        )

    def delete_checkpoint(self) -> None:
        """The hard reset: the next start is a new query (no offsets, no state)."""
        if self.running:
            raise StepFailed("stop the Spark app before deleting its checkpoint")
        self._stage.store.delete_checkpoint(self.folders.checkpoints)
        if self.folders.checkpoints.exists():
            shutil.rmtree(self.folders.checkpoints)
        self._stage.timeline.event("checkpoint deleted", "reset")
        self._stage.say(f"deleted {self.folders.checkpoints}")

    def inspect(self, *args: str, name: str = "inspect") -> tuple[int, str]:
        """`python -m spark_app inspect ARGS…` on the app's PySpark, as a user runs it, with
        this app's Kafka: its exit code and its output (e.g. the JSON of `--json`)."""
        kafka, settings = self._stage.kafka, self._stage.settings
        argv = [
            settings.spark_python or sys.executable,
            "-m",
            "spark_app",
            "inspect",
            "--bootstrap-servers",
            kafka.app_bootstrap_servers,
            *args,
        ]
        process = self._stage.group.start(name, argv)
        code = process.wait_exit(
            self._stage.timings.spark_start_timeout_sec * 2, progress=self._stage.waiting
        )
        return code, process.output()

    def repartition_state(self, partitions: int, **options: Any) -> tuple[int, str]:
        """`python -m spark_app repartition-state N` on this app's checkpoint, with the options
        of its latest start changed by `options` (`python=` another PySpark's interpreter), as a
        user runs it between two starts: its exit code and its output."""
        launcher = self._launcher or self._new_launcher()
        self._launcher = launcher
        process = launcher.repartition_state(partitions, **{**self._options, **options})
        code = process.wait_exit(
            self._stage.timings.spark_start_timeout_sec * 2, progress=self._stage.waiting
        )
        return code, process.output()

    def start_read(self, *args: str, name: str = "read") -> ManagedProcess:
        """`python -m spark_app read ARGS…` (one batch read of the topic through Spark's
        connector) on the app's PySpark, with this app's Kafka and log folder; the process, to
        watch and wait for."""
        kafka, settings = self._stage.kafka, self._stage.settings
        argv = [
            settings.spark_python or sys.executable,
            "-m",
            "spark_app",
            "read",
            "--bootstrap-servers",
            kafka.app_bootstrap_servers,
            "--topic",
            kafka.topic,
            "--log-dir",
            str(self.folders.log),
            *args,
        ]
        return self._stage.group.start(name, argv)

    def committed_offset(self) -> int | None:
        """The offset the checkpoint resumes from (summed over partitions), if any."""
        return committed_offset(self.checkpoint_view())

    def planned_offset(self) -> int | None:
        """How far the running query may have read: the end of the offset log's last batch."""
        return planned_offset(self.checkpoint_view())


def _signal_group(process: ManagedProcess, sig: signal.Signals) -> None:
    """`sig` to the process's whole group: it runs in a session of its own (launch/process.py),
    so its pid is the group's id."""
    if process.pid is None:
        return
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass  # the group is gone already: nothing to stop or continue
