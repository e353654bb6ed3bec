"""The running demo: both apps as real processes, the state they produce, and the commands.

`DemoSession` owns the producer (with the broker it starts) and the Spark app, each in its own
process group through `launch/process.py`, so `k` kills the JVM with its Python driver and
nothing outlives the session. `tick()` folds what happened since the last call into the
`DemoState`; `handle(command)` does what a key asked. Slow work (a graceful stop, a retention
change) runs in a background job so the screen keeps moving. What it reads goes into a
`Timeline` too (Kafka's offsets, the committed offset, the app's starts and ends), the data the
report's picture is drawn from; with `--web` the live page draws it (`on_tick`), and the
session reads more often and more (Kafka per partition, the checkpoint's newest batches).

Usage:
    with DemoSession(DemoSettings(port=19092), on_event=print) as session:
        session.tick()
        session.handle(Command.KILL)
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from launch.commands import producer_command, spark_command
from launch.errors import LaunchError
from launch.group import ProcessGroup
from launch.leftovers import describe_leftovers, find_leftovers
from launch.process import ManagedProcess
from scenarios.demo import state as st
from scenarios.demo.errors import PreviousRunStillGoing
from scenarios.demo.keys import Command
from scenarios.demo.readings import KafkaWatch, read_checkpoint_view, read_verdict
from scenarios.demo.reset import empty_folder
from scenarios.demo.retention import next_retention, set_topic_retention
from scenarios.demo.settings import DemoSettings
from scenarios.demo.store import DemoStore
from scenarios.demo.view import retention_label, retention_meaning
from scenarios.engine.timeline import EventKind, Timeline
from spark_app.query.negative_key import CRASH_FILE_NAME
from spark_app.runtime.session import sweep_dead_sessions

__all__ = ["DemoSession", "OutputTail", "DEMO_MARK_VARIABLE"]

PRODUCER_READY_SEC = 120.0  # Kafka (a JVM, perhaps its first fetch) and the first message
STOP_GRACE_SEC = 30.0
QUIT_GRACE_SEC = 10.0
STORE_STOP_SEC = 60.0  # a MiniDFSCluster's shutdown, then its data folder removed
# With the live page: the checkpoint looked at four times a second, so a new commits/N is on the
# page within a second (on a store too, each look a few HTTP requests to it: at two a second,
# hdfs's slowest commit took 1.07 s, BENCHMARKS.md); the newest batches it shows; how often
# the timeline takes a sample.
PAGE_LOOK_SEC = 0.25
PAGE_STORE_LOOK_SEC = 0.25
PAGE_ROW = 6
TIMELINE_SAMPLE_SEC = 0.5
# How the timeline names each way down.
_DOWN_EVENTS: dict[st.SparkPhase, tuple[str, EventKind]] = {
    st.SparkPhase.KILLED: ("kill -9", "kill"),
    st.SparkPhase.STOP_TIMED_OUT: ("kill -9 after SIGTERM", "kill"),
    st.SparkPhase.STOPPED: ("stopped (SIGTERM)", "stop"),
    st.SparkPhase.CRASHED: ("crashed on a negative key", "crash"),
    st.SparkPhase.FAILED: ("failed", "crash"),
    st.SparkPhase.EXITED: ("exited", "exit"),
}


class OutputTail:
    """The complete lines a process appended to its output file since the last look."""

    def __init__(self, path: Path, position: int = 0) -> None:
        self.path = path
        self.position = position
        self._partial = b""

    def new_lines(self) -> list[str]:
        try:
            with self.path.open("rb") as handle:
                handle.seek(self.position)
                data = handle.read()
        except FileNotFoundError:
            return []
        self.position += len(data)
        *complete, self._partial = (self._partial + data).split(b"\n")
        return [line.decode("utf-8", errors="replace").rstrip("\r") for line in complete]


class _Job:
    """A function run on a daemon thread; its outcome is collected by the loop, not raised there."""

    def __init__(self, name: str, work: Callable[[], object]) -> None:
        self.name = name
        self.error: BaseException | None = None
        self._work = work
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._work()
        except Exception as error:  # reported as an event by the loop; a thread cannot raise to it
            self.error = error

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()


class DemoSession:
    """Both apps, their state and the keys' effects; a context manager that always cleans up."""

    def __init__(
        self,
        settings: DemoSettings,
        on_event: Callable[[str], None] | None = None,
        on_tick: Callable[[st.DemoState, Timeline], None] | None = None,
    ) -> None:
        self.settings = settings
        self.timeline = Timeline()
        self._on_tick = on_tick
        self.state = st.initial_state(
            settings.retention_sec,
            str(settings.spark_settings().spark_log_file),
            settings.retention_choices,
        )
        self._on_event = on_event
        self._group = ProcessGroup(settings.log_dir, env=_app_environment(settings), cwd=Path.cwd())
        self._producer: ManagedProcess | None = None
        self._producer_tail: OutputTail | None = None
        self._producer_started_at = 0.0
        self._spark: ManagedProcess | None = None
        self._spark_tail: OutputTail | None = None
        self._spark_exit_seen = True
        self._spark_wanted = True  # start it as soon as the producer has sent its first message
        self._restart_pending = False
        self._stop_job: _Job | None = None
        self._retention_job: tuple[_Job, int] | None = None
        self._next_reading = 0.0
        self._next_look = 0.0
        self._next_sample = 0.0
        self._kafka_watch = (
            KafkaWatch(settings.kafka, settings.topic) if settings.web is not None else None
        )
        self._store_tail: OutputTail | None = None
        self._store = (
            None
            if settings.checkpoint_store == "local"
            else DemoStore(
                settings.checkpoint_store,
                self._group,
                settings.log_dir / "store-data",
                settings.log_dir,
            )
        )

    # -- life cycle ---------------------------------------------------------------------------
    @property
    def started(self) -> bool:
        return self._producer is not None

    def start(self) -> DemoSession:
        if self._producer is not None:
            return self
        self._refuse_leftovers()
        self.settings.log_dir.mkdir(parents=True, exist_ok=True)
        if self.settings.starts_fresh:
            self._clear_previous_run()
        if self._store is not None:
            store = self._store.start()
            self._store_tail = OutputTail(store.output_path, store.mark())
            self._event(
                f"{self._store.kind} checkpoint store starting (pid {store.pid}); the "
                f"Spark app starts once it answers"
            )
        settings = self.settings
        self._producer = self._group.start(
            "producer",
            producer_command(
                settings.producer_settings(), settings.kafka_choice(), python=settings.python
            ),
            output_name="demo-producer",
        )
        self._producer_tail = OutputTail(self._producer.output_path, self._producer.mark())
        self._producer_started_at = time.monotonic()
        if self._kafka_watch is not None:
            self._kafka_watch.start()
        self._event(f"producer started (pid {self._producer.pid}), Kafka at {self.settings.kafka}")
        self._event(
            f"retention of {settings.topic} is {retention_label(settings.retention_sec)}: "
            f"{retention_meaning(self.state)}"
        )
        return self

    def _refuse_leftovers(self) -> None:
        """Starting beside an earlier run's apps would mix its output log with ours."""
        settings = self.settings
        found = find_leftovers(
            [settings.log_dir, settings.checkpoint_dir],
            [settings.port] if settings.starts_kafka else [],
        )
        if found:
            raise PreviousRunStillGoing(describe_leftovers(found))

    def _clear_previous_run(self) -> None:
        # A fresh start means everything of an earlier run goes: with an empty topic an old
        # checkpoint would point past its end, and an old output log would hold values the new
        # producer sends again.
        settings = self.settings
        removed = []
        # The checkpoint folder is emptied, not deleted: the repository tracks its placeholder.
        if empty_folder(settings.checkpoint_dir):
            removed.append(f"{settings.checkpoint_dir}/")
        if settings.data_dir is not None and settings.data_dir.exists():
            shutil.rmtree(settings.data_dir)
            removed.append(f"{settings.data_dir}/")
        # crash-once's record names values by number, and the new topic counts from 1 again:
        # left in place, it kept a negative key on such a value from crashing the app.
        for leftover in (settings.output_log, settings.log_dir / CRASH_FILE_NAME):
            if leftover.exists():
                leftover.unlink()
                removed.append(str(leftover))
        if removed:
            self._event(f"fresh start: removed {', '.join(removed)}")

    def close(self) -> None:
        """Stop the Spark app gracefully, then the producer; then make sure nothing is left."""
        self._spark_wanted = self._restart_pending = False  # nothing may start after this
        if self._kafka_watch is not None:
            self._kafka_watch.stop()
        try:
            if self._spark is not None and self._spark.running:
                self.state = st.on_spark_signal(self.state, "SIGTERM")
                self._spark.terminate(timeout=QUIT_GRACE_SEC)
            if self._producer is not None and self._producer.running:
                self._producer.terminate(timeout=QUIT_GRACE_SEC)
            if (
                self._store is not None
                and self._store.process is not None
                and self._store.process.running
            ):
                # SIGTERM, not the group's kill: the store removes its data as it stops.
                self._store.process.terminate(timeout=STORE_STOP_SEC)
        finally:
            self._group.stop()
            sweep_dead_sessions()  # an app killed with `k` and not restarted left its folder
            if self._store is not None:
                self._store.close()

    def serve_page_at(self, url: str) -> None:
        """The live page is served at `url`: the screen names it."""
        self.state = st.with_page_url(self.state, url)

    @property
    def checkpoint_shown(self) -> str:
        """Where the checkpoint is, as the farewell names it."""
        folder = self.settings.checkpoint_dir
        if self._store is not None and self._store.url:
            return f"{self._store.location(folder)} (gone with the store)"
        return f"{folder}/"

    def __enter__(self) -> DemoSession:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- what happened since the last look ---------------------------------------------------
    def tick(self, now: float | None = None) -> st.DemoState:
        now = time.monotonic() if now is None else now
        self._read_output()
        self._notice_exits()
        self._start_spark_when_ready(now)
        self._collect_jobs()
        if now >= self._next_reading:
            self._next_reading = now + self.settings.refresh_sec
            self.state = st.with_verdict(self.state, read_verdict(self.settings.output_log))
        if now >= self._next_look:
            self._next_look = now + self._look_sec
            self._look_at_checkpoint()
        if now >= self._next_sample:
            self._next_sample = now + TIMELINE_SAMPLE_SEC
            self._sample()
        if self._on_tick is not None:
            self._on_tick(self.state, self.timeline)
        return self.state

    @property
    def _look_sec(self) -> float:
        """How often the checkpoint is read: with the verdict, or faster for the live page."""
        if self.settings.web is None:
            return self.settings.refresh_sec
        return PAGE_STORE_LOOK_SEC if self._store is not None else PAGE_LOOK_SEC

    def _look_at_checkpoint(self) -> None:
        folder, shown = self.settings.checkpoint_dir, None
        if self._store is not None:
            folder, shown = self._store.logs_view(folder), self._store.shown(folder)
        row = PAGE_ROW if self.settings.web is not None else 0
        self.state = st.with_checkpoint(
            self.state, read_checkpoint_view(folder, self.state.producer.earliest, shown, row)
        )

    def _sample(self) -> None:
        """Kafka's window (the page's own look, else the producer's last line) and the committed
        offset, into the timeline."""
        window = self._kafka_watch.last if self._kafka_watch is not None else None
        if window is not None:
            self.state = st.with_kafka(self.state, window.per_partition)
            earliest, latest = window.earliest, window.latest
        else:
            earliest, latest = self.state.producer.earliest, self.state.producer.latest
        committed = self.state.checkpoint.committed_total
        per_partition = window.per_partition if window is not None else ()
        self.timeline.sample(earliest, latest, committed, per_partition)

    def _read_output(self) -> None:
        if self._producer_tail is not None:
            for line in self._producer_tail.new_lines():
                self.state = st.on_producer_line(self.state, line)
        if self._spark_tail is not None:
            for line in self._spark_tail.new_lines():
                self.state = st.on_spark_line(self.state, line)

    def _notice_exits(self) -> None:
        producer = self._producer
        if producer is not None and self.state.producer.exit_code is None and not producer.running:
            code = producer.returncode
            self.state = st.on_producer_exit(self.state, -1 if code is None else code)
            self._event(
                f"the producer exited with code {code}; its output is in {producer.output_path}"
            )
        spark = self._spark
        if spark is None or self._spark_exit_seen or spark.running:
            return
        self._spark_exit_seen = True
        self._read_output()  # its last words (a data-loss error, a crash) before the verdict
        code = spark.returncode
        self.state = st.on_spark_exit(self.state, -1 if code is None else code)
        self._event(f"Spark app {self.state.spark.phase.value} (exit code {code})")
        label, kind = _DOWN_EVENTS.get(self.state.spark.phase, ("down", "exit"))
        self.timeline.event(label, kind)
        self.timeline.app_down()
        spark.stop()  # whatever of its group outlived it (the JVM) goes too
        if self._restart_pending:
            self._restart_pending = False
            self._start_spark()

    def _start_spark_when_ready(self, now: float) -> None:
        if not self._spark_wanted or self._spark is not None:
            return
        if self.state.producer.exit_code is not None:
            self._spark_wanted = False
            self._event("the producer is gone, so the Spark app is not started; press q")
            return
        if not self._store_ready():
            return
        producer_ready = self.state.producer.latest is not None
        if producer_ready or now - self._producer_started_at > PRODUCER_READY_SEC:
            self._spark_wanted = False
            if not producer_ready:
                self._event(
                    f"no message from the producer within {PRODUCER_READY_SEC:.0f} s; "
                    f"starting the Spark app anyway"
                )
            self._start_spark()

    def _store_ready(self) -> bool:
        store = self._store
        if store is None:
            return True
        # Until it answers, its lines are the demo's events: a first use fetches its jars.
        for line in self._store_tail.new_lines() if self._store_tail is not None else []:
            self._event(f"{store.kind} store: {line}")
        if store.ready():
            self._store_tail = None
            return True
        if store.process is not None and not store.process.running:
            self._spark_wanted = False
            self._event(
                f"the {store.kind} checkpoint store exited with code "
                f"{store.process.returncode}; its output is in {store.process.output_path}"
            )
        return False

    def _start_spark(self) -> None:
        if self._spark is not None:
            self._spark.stop()  # idempotent; closes the previous run's output file
        url = self._store.url if self._store is not None else None
        self._spark = self._group.start(
            "spark",
            spark_command(self.settings.spark_settings(url), python=self.settings.python),
            output_name="demo-spark",
        )
        self._spark_tail = OutputTail(self._spark.output_path, self._spark.mark())
        self._spark_exit_seen = False
        self.state = st.on_spark_started(self.state, self._spark.pid or -1)
        self.timeline.event(f"start {self.state.spark.starts}", "start")
        self.timeline.app_up()
        self._event(
            f"Spark app started (pid {self._spark.pid}, start #{self.state.spark.starts}); "
            f"its console goes to {self._spark.output_path}"
        )

    def _collect_jobs(self) -> None:
        if self._stop_job is not None and self._stop_job.done:
            if self._stop_job.error is not None:
                self._event(f"stopping the Spark app failed: {self._stop_job.error}")
            self._stop_job = None
        if self._retention_job is not None and self._retention_job[0].done:
            job, seconds = self._retention_job
            self._retention_job = None
            if job.error is not None:
                self._event(f"retention unchanged: {job.error}")
            else:
                self.state = st.with_retention(self.state, seconds)
                self.timeline.event(f"retention {retention_label(seconds)}", "note")
                self._event(
                    f"retention of {self.settings.topic} set to {retention_label(seconds)} "
                    f"(retention.ms={seconds * 1000}): {retention_meaning(self.state)}"
                )

    # -- what the keys do --------------------------------------------------------------------
    def handle(self, command: Command) -> bool:
        """Carry out one command; False means quit."""
        actions: dict[Command, Callable[[], None]] = {
            Command.NEGATIVE_KEY: self._negative_key,
            Command.KILL: self._kill,
            Command.STOP: self._stop,
            Command.RESTART: self._restart,
            Command.DELETE_CHECKPOINT: self._delete_checkpoint,
            Command.RETENTION: self._change_retention,
        }
        if command is Command.QUIT:
            self._event("quitting: stopping both apps")
            return False
        actions[command]()
        return True

    @property
    def spark_up(self) -> bool:
        return self._spark is not None and self._spark.running

    def _negative_key(self) -> None:
        if self._producer is None or not self._producer.running:
            self._event("the producer is not running; no negative key sent")
            return
        try:
            self._producer.send_line("")
        except (LaunchError, OSError) as error:
            self._event(f"could not reach the producer: {error}")
            return
        self.state = st.on_negative_key_requested(self.state)
        self._event("Enter: the next message gets a negative key")
        self.timeline.event("Enter: negative key", "note")

    def _kill(self) -> None:
        if not self.spark_up:
            self._event("k: the Spark app is not running")
            return
        assert self._spark is not None
        self.state = st.on_spark_signal(self.state, "SIGKILL")
        self._event(f"k: kill -9 of the Spark app's process group (pid {self._spark.pid})")
        self._spark.kill()

    def _stop(self) -> None:
        if not self.spark_up:
            self._event("s: the Spark app is not running")
            return
        if self._stop_job is not None:
            self._event("s: already stopping")
            return
        spark = self._spark
        assert spark is not None
        self.state = st.on_spark_signal(self.state, "SIGTERM")
        self._event(f"s: SIGTERM to the Spark app (kill -9 after {STOP_GRACE_SEC:.0f} s)")
        self._stop_job = _Job("spark-stop", lambda: spark.terminate(timeout=STOP_GRACE_SEC))

    def _restart(self) -> None:
        if self.spark_up:
            self._restart_pending = True
            self._event("r: stopping the Spark app first, then starting it again")
            self._stop()
            return
        self._spark_wanted = False
        self._event("r: starting the Spark app")
        self._start_spark()

    def _delete_checkpoint(self) -> None:
        folder = self.settings.checkpoint_dir
        if self.spark_up:
            self._event("d: the Spark app is up; stop it first (s or k), then press d")
            return
        if self._store is not None:
            if (failed := self._store.delete(folder)) is not None:
                self._event(f"d: nothing deleted: {failed}")
                return
            where = self._store.location(folder)
        elif not empty_folder(folder):
            self._event(f"d: there is no checkpoint at {folder}/")
            return
        else:
            where = f"{folder}/"
        self._event(f"d: deleted {where} (the hard reset: next start is a new query, count from 0)")
        self.timeline.event("checkpoint deleted", "reset")
        self._next_reading = self._next_look = 0.0

    def _change_retention(self) -> None:
        if self._retention_job is not None:
            self._event("t: a retention change is already under way")
            return
        seconds = next_retention(self.state.retention_sec, self.settings.retention_choices)
        settings = self.settings
        job = _Job(
            "retention", lambda: set_topic_retention(settings.kafka, settings.topic, seconds)
        )
        self._retention_job = (job, seconds)
        self._event(f"t: setting retention to {retention_label(seconds)}...")

    def _event(self, text: str) -> None:
        self.state = st.with_event(self.state, text)
        if self._on_event is not None:
            self._on_event(text)


DEMO_MARK_VARIABLE = "CHECKPOINT_DEMO_LOG_DIR"


def _app_environment(settings: DemoSettings) -> dict[str, str]:
    # The apps run as `python -m kafka_app` / `-m spark_app` from wherever the user is, so the
    # project root goes first on their path. The mark is inherited by every descendant (the JVM
    # too), so anyone can check that a demo left nothing behind.
    root = str(Path(__file__).resolve().parents[2])
    existing = os.environ.get("PYTHONPATH")
    return {
        "PYTHONPATH": f"{root}{os.pathsep}{existing}" if existing else root,
        DEMO_MARK_VARIABLE: str(settings.log_dir.resolve()),
    }
