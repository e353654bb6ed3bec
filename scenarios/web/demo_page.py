"""The demo's state as the live page shows it: a pure function, and the publisher the demo calls.

The demo's session already reads everything the page needs, through the demo's readings
(scenarios/demo/readings.py): the producer's and the app's lines, the app's exits, the
checkpoint (with its newest batches and state versions when the page is on), Kafka's offsets
per partition, the verdict. It records a timeline of them too. So the page reads no file of its
own: `demo_view` turns one `DemoState` and the timeline into a `LiveView`, and `DemoPage`
publishes it after each of the session's ticks when anything changed.

Usage:
    page = DemoPage(server, topic="Experience")
    session = DemoSession(settings, on_tick=page.show)
"""

from __future__ import annotations

from scenarios.demo.state import DemoState, SparkPhase, SparkView
from scenarios.demo.view import KEYS_HELP, retention_label
from scenarios.engine.timeline import Timeline
from scenarios.report.last_words import read_last_words
from scenarios.report.live_tail import shown_line
from scenarios.report.timeline import timeline_svg
from scenarios.web.server import LiveServer
from scenarios.web.view import AppView, LiveView, PartitionView, render_fragment

__all__ = ["DemoPage", "app_status", "demo_view", "PICTURE_SEC"]

# The picture shows the last minutes: a crash and its restart stay wide enough to read.
PICTURE_SEC = 300.0

_DOWN = {
    SparkPhase.STOPPED: "stopped",
    SparkPhase.STOP_TIMED_OUT: "killed",
    SparkPhase.KILLED: "killed",
    SparkPhase.CRASHED: "crashed",
    SparkPhase.EXITED: "stopped",
    SparkPhase.FAILED: "failed",
    SparkPhase.STOPPING: "stopping",
    SparkPhase.NOT_STARTED: "not started",
}


def app_status(spark: SparkView) -> str:
    """running, starting or restarting (up, no batch of this start yet), stopping, stopped,
    killed, crashed, failed or not started."""
    if spark.phase is SparkPhase.RUNNING:
        if spark.last_batch is not None:
            return "running"
        return "restarting" if spark.starts > 1 else "starting"
    return _DOWN[spark.phase]


def _app(state: DemoState) -> AppView:
    spark = state.spark
    said = [shown for line in spark.lines if (shown := shown_line(line))]
    error_class = read_last_words(spark.last_words).condition if spark.last_words else None
    detail = spark.phase.value
    if spark.exit_code is not None and not spark.phase.is_up:
        detail += f" (exit code {spark.exit_code})"
    return AppView(
        status=app_status(spark),
        restarts=max(0, spark.starts - 1),
        detail=detail,
        last_line=said[-1] if said else "",
        error_class=error_class,
    )


def _partitions(state: DemoState, topic: str) -> tuple[PartitionView, ...]:
    resume = dict(state.checkpoint.resume_at)
    if state.kafka:
        return tuple(
            PartitionView(f"{topic}-{n}", earliest, latest, resume.get(f"{topic}-{n}"))
            for n, (earliest, latest) in enumerate(state.kafka)
        )
    producer = state.producer  # until Kafka answers the page's own look: the producer's sums
    if producer.earliest is None or producer.latest is None:
        return ()
    at = sum(resume.values()) if resume else None
    return (PartitionView(f"{topic} (all partitions)", producer.earliest, producer.latest, at),)


def _hint() -> str:
    keys = " · ".join(f"{key} {action}" for key, action in KEYS_HELP)
    return f"keys, in the demo's terminal: {keys}"


def demo_view(
    state: DemoState,
    timeline: Timeline,
    topic: str = "Experience",
    replayed: frozenset[int] = frozenset(),
) -> LiveView:
    """One frame of the demo's page; `replayed` names the batches a restart replayed."""
    return LiveView(
        title="The checkpoint, live: the demo",
        subtitle=f"topic {topic} · retention {retention_label(state.retention_sec)}",
        app=_app(state),
        verdict=state.verdict,
        partitions=_partitions(state, topic),
        retention=retention_label(state.retention_sec),
        checkpoint=state.checkpoint.summary,
        batches=state.checkpoint.batches,
        state=state.checkpoint.state,
        picture=timeline_svg(
            timeline,
            "Kafka and the checkpoint over time",
            last_sec=PICTURE_SEC,
            width=1260,
            height=300,
            font=17,
            legend=False,
        ),
        events=state.events,
        hint=_hint(),
        replayed=replayed,
    )


class DemoPage:
    """Publishes the demo's frame after a tick when the state or the timeline moved, and
    remembers which planned batches the app left behind when it went down: once committed,
    the page says the restart replayed them."""

    def __init__(self, server: LiveServer, topic: str = "Experience") -> None:
        self._server = server
        self._topic = topic
        self._shown: tuple[object, ...] | None = None
        self._left_planned: set[int] = set()

    def show(self, state: DemoState, timeline: Timeline) -> None:
        if not state.checkpoint.batches:
            self._left_planned.clear()  # a deleted checkpoint: its batch ids start again at 0
        elif not state.spark.phase.is_up:
            self._left_planned |= {b.batch_id for b in state.checkpoint.batches if not b.committed}
        replayed = frozenset(
            b.batch_id
            for b in state.checkpoint.batches
            if b.committed and b.batch_id in self._left_planned
        )
        # Rendering costs a few milliseconds; the session ticks four times a second and most
        # ticks change nothing, so compare what the frame is made of first.
        made_of = (
            state,
            replayed,
            len(timeline.samples),
            len(timeline.events),
            len(timeline.up_periods),
        )
        if made_of == self._shown:
            return
        self._shown = made_of
        self._server.publish(render_fragment(demo_view(state, timeline, self._topic, replayed)))
