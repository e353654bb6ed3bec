"""What the demo knows at one moment, and the pure rules that change it.

Everything the screen shows lives in one frozen `DemoState`. The session feeds it the lines the
two apps print, their exits, the verifier's verdict and the checkpoint summary; each feed is a
pure function returning a new state, so the rules can be tested without starting anything.

Usage:
    state = initial_state(retention_sec=15)
    state = on_producer_line(state, "Experience [0:3]: 3 -> 3")
    state = on_spark_exit(state, 255)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from kafka_app.message_line import parse_message
from spark_app.lines.batch_line import parse_batch_line
from spark_app.runtime.class_cache import archive_news

__all__ = [
    "RECENT_LINES",
    "CRASH_EXIT_CODE",
    "Verdict",
    "BatchView",
    "StateView",
    "CheckpointView",
    "SparkPhase",
    "ProducerView",
    "SparkView",
    "DemoState",
    "initial_state",
    "on_producer_line",
    "on_producer_exit",
    "on_negative_key_requested",
    "on_spark_started",
    "on_spark_line",
    "on_spark_signal",
    "on_spark_exit",
    "with_verdict",
    "with_checkpoint",
    "with_kafka",
    "with_page_url",
    "with_retention",
    "with_event",
]

RECENT_LINES = 8
RECENT_EVENTS = 6
CRASH_EXIT_CODE = 255  # the Spark app's own halt on a negative key, like halt(-1) in the seed


@dataclass(frozen=True)
class Verdict:
    """The verifier's judgement of the output log, boiled down for one panel."""

    ok: bool | None  # None: nothing to judge yet
    headline: str
    details: tuple[str, ...] = ()
    final_count: int | None = None


@dataclass(frozen=True)
class BatchView:
    """One batch of the checkpoint's offset log: `offsets/N` with the range it planned per
    partition, and whether `commits/N` is there. A planned batch without its commit is the
    batch a restart replays."""

    batch_id: int
    # (partition as Kafka tools print it, start offset or None when the batch before is gone
    # from the folder, end offset): the batch reads [start, end).
    ranges: tuple[tuple[str, int | None, int], ...] = ()
    committed: bool = False

    @property
    def messages(self) -> int | None:
        """How many offsets the batch covers, None when a start is unknown."""
        if any(start is None for _, start, _ in self.ranges):
            return None
        return sum(end - start for _, start, end in self.ranges)  # type: ignore[operator]

    def range_text(self) -> str:
        """`[120, 123)` for one partition; `Experience-0 [40, 41)  Experience-1 [40, 42)` for more."""
        shown = [f"[{'?' if start is None else start}, {end})" for _, start, end in self.ranges]
        if len(self.ranges) == 1:
            return shown[0]
        return "  ".join(f"{name} {text}" for (name, _, _), text in zip(self.ranges, shown))


@dataclass(frozen=True)
class StateView:
    """The state store's versions on disk (operator 0, partition 0: the count's one store),
    and the version a restart loads: the last committed batch's + 1, rebuilt from the newest
    snapshot at or below it and the files after."""

    folder: str
    versions: tuple[int, ...] = ()
    snapshots: tuple[int, ...] = ()
    restart_loads: int | None = None

    @property
    def loaded_from(self) -> int | None:
        """The snapshot the restart starts from (None: it replays every version from 1)."""
        if self.restart_loads is None:
            return None
        return max((v for v in self.snapshots if v <= self.restart_loads), default=None)


@dataclass(frozen=True)
class CheckpointView:
    """The checkpoint folder in one line, and the last batch it has committed; for the live
    page (`--web`) also its newest batches, its state versions and where a restart resumes."""

    summary: str
    last_batch: int | None = None
    batches: tuple[BatchView, ...] = ()
    state: StateView | None = None
    # The end of the last committed batch, summed over partitions: the timeline's committed line.
    committed_total: int | None = None
    # Where a restart starts reading, per partition (a pending batch's start, else the end of
    # the last committed one).
    resume_at: tuple[tuple[str, int], ...] = ()


class SparkPhase(Enum):
    """Where the Spark app is in its life; the label is what the panel shows."""

    NOT_STARTED = "not started"
    RUNNING = "up"
    STOPPING = "stopping (SIGTERM sent)"
    STOPPED = "down: stopped (SIGTERM)"
    STOP_TIMED_OUT = "down: killed (kill -9) after SIGTERM did not stop it"
    KILLED = "down: killed (kill -9)"
    CRASHED = "down: crashed itself on a negative key"
    EXITED = "down: exited"
    FAILED = "down: failed"

    @property
    def is_up(self) -> bool:
        return self in (SparkPhase.RUNNING, SparkPhase.STOPPING)


@dataclass(frozen=True)
class ProducerView:
    """The producer app as seen from its console output."""

    up: bool = False
    lines: tuple[str, ...] = ()
    earliest: int | None = None
    latest: int | None = None
    last_value: int | None = None
    negatives_requested: int = 0
    negatives_seen: int = 0
    last_negative_key: int | None = None
    exit_code: int | None = None


@dataclass(frozen=True)
class SparkView:
    """The Spark app as seen from its process and console output."""

    phase: SparkPhase = SparkPhase.NOT_STARTED
    pid: int | None = None
    exit_code: int | None = None
    lines: tuple[str, ...] = ()
    last_batch: int | None = None
    count: int | None = None
    starts: int = 0
    # Why it last went down on its own: the app ends with one clear line saying what to do.
    last_words: str | None = None
    # The signal we sent decides how an exit is named: a -9 we sent is a kill, not a failure.
    signal_sent: str | None = None
    # Spark's class archive, as the app reports it: "writing" (a restart now starts without
    # it, slower), "saved", or None (nothing said: it exists, or the cache is off).
    class_archive: str | None = None


@dataclass(frozen=True)
class DemoState:
    """Everything the demo shows; replaced, never mutated."""

    retention_sec: int
    producer: ProducerView = field(default_factory=ProducerView)
    spark: SparkView = field(default_factory=SparkView)
    verdict: Verdict = Verdict(ok=None, headline="no output yet")
    checkpoint: CheckpointView = CheckpointView(summary="not read yet")
    events: tuple[str, ...] = ()
    # Where the app's full errors and Spark's traces go; the failure panel names it.
    spark_log: str = "log/spark.log"
    # What `t` cycles through, the starting retention first; () when the demo does not say.
    retention_choices: tuple[int, ...] = ()
    # Kafka per partition, (earliest, latest) in partition order, when the demo asks Kafka
    # itself (the live page); () when it goes by the producer's lines alone.
    kafka: tuple[tuple[int, int], ...] = ()
    # Where the live page is served (`--web`), for the screen to name; None without one.
    page_url: str | None = None


def initial_state(
    retention_sec: int,
    spark_log: str = "log/spark.log",
    retention_choices: tuple[int, ...] = (),
) -> DemoState:
    return DemoState(
        retention_sec=retention_sec, spark_log=spark_log, retention_choices=retention_choices
    )


def _recent(lines: tuple[str, ...], line: str, keep: int) -> tuple[str, ...]:
    return (*lines, line)[-keep:]


def with_event(state: DemoState, event: str) -> DemoState:
    """Remember what just happened (a key pressed, an exit) for the events line."""
    return replace(state, events=_recent(state.events, event, RECENT_EVENTS))


def on_producer_line(state: DemoState, line: str) -> DemoState:
    """Take one console line of the producer; message lines move earliest:latest."""
    line = line.rstrip("\n")
    producer = replace(
        state.producer, up=True, lines=_recent(state.producer.lines, line, RECENT_LINES)
    )
    sent = parse_message(line)
    if sent is not None:
        key = sent.key
        producer = replace(
            producer,
            earliest=sent.earliest,
            latest=sent.latest,
            last_value=sent.value,
            negatives_seen=producer.negatives_seen + (1 if key < 0 else 0),
            last_negative_key=key if key < 0 else producer.last_negative_key,
        )
    return replace(state, producer=producer)


def on_producer_exit(state: DemoState, exit_code: int) -> DemoState:
    return replace(state, producer=replace(state.producer, up=False, exit_code=exit_code))


def on_negative_key_requested(state: DemoState) -> DemoState:
    """Enter was sent to the producer; the message that carries it shows up later."""
    producer = state.producer
    return replace(
        state, producer=replace(producer, negatives_requested=producer.negatives_requested + 1)
    )


def on_spark_started(state: DemoState, pid: int) -> DemoState:
    spark = replace(
        state.spark,
        phase=SparkPhase.RUNNING,
        pid=pid,
        exit_code=None,
        signal_sent=None,
        last_words=None,
        # A writer dies with its app: a new start says again if it writes one.
        class_archive="saved" if state.spark.class_archive == "saved" else None,
        starts=state.spark.starts + 1,
        # A new run reports its own batches; until it does, the files on disk speak.
        last_batch=None,
        count=None,
    )
    return replace(state, spark=spark)


def on_spark_line(state: DemoState, line: str) -> DemoState:
    """Take one console line of the Spark app; batch lines move the batch and the count."""
    line = line.rstrip("\n")
    spark = replace(state.spark, lines=_recent(state.spark.lines, line, RECENT_LINES))
    news = archive_news(line)
    if news is not None:
        spark = replace(spark, class_archive=news)
    batch = parse_batch_line(line)
    if batch is not None:
        spark = replace(spark, last_batch=batch.batch_id)
        if batch.count is not None:
            spark = replace(spark, count=batch.count)
    return replace(state, spark=spark)


def on_spark_signal(state: DemoState, signal_name: str) -> DemoState:
    """Record that we sent SIGKILL or SIGTERM, so the coming exit is named right."""
    phase = SparkPhase.STOPPING if signal_name == "SIGTERM" else state.spark.phase
    spark = replace(state.spark, signal_sent=signal_name, phase=phase)
    return replace(state, spark=spark)


def _phase_for_exit(exit_code: int, signal_sent: str | None) -> SparkPhase:
    if signal_sent == "SIGKILL":
        return SparkPhase.KILLED
    if exit_code == CRASH_EXIT_CODE:
        return SparkPhase.CRASHED
    if signal_sent == "SIGTERM":
        return SparkPhase.STOP_TIMED_OUT if exit_code == -9 else SparkPhase.STOPPED
    return SparkPhase.EXITED if exit_code == 0 else SparkPhase.FAILED


def on_spark_exit(state: DemoState, exit_code: int) -> DemoState:
    """The Spark app's process is gone; name why from its exit code and what we sent."""
    phase = _phase_for_exit(exit_code, state.spark.signal_sent)
    said = [line.strip() for line in state.spark.lines if line.strip()]
    last_words = said[-1] if said and phase in (SparkPhase.FAILED, SparkPhase.CRASHED) else None
    spark = replace(state.spark, phase=phase, pid=None, exit_code=exit_code, last_words=last_words)
    return replace(state, spark=spark)


def with_verdict(state: DemoState, verdict: Verdict) -> DemoState:
    return replace(state, verdict=verdict)


def with_checkpoint(state: DemoState, checkpoint: CheckpointView) -> DemoState:
    return replace(state, checkpoint=checkpoint)


def with_retention(state: DemoState, retention_sec: int) -> DemoState:
    return replace(state, retention_sec=retention_sec)


def with_kafka(state: DemoState, per_partition: tuple[tuple[int, int], ...]) -> DemoState:
    return replace(state, kafka=per_partition)


def with_page_url(state: DemoState, url: str) -> DemoState:
    return replace(state, page_url=url)
