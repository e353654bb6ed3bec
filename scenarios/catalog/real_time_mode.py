"""Real-time Mode on the same checkpoint: milliseconds per record, a whole duration replayed.

PySpark 4.2.0's `trigger(realTime="5 seconds")` runs one long batch per duration and hands
each record to the sink as it arrives. A stateless query (queries/real_time/echo.py) reads the
producer's topic and writes each record to a topic of its own through Spark's Kafka sink, on one
partition, `local[2]` and one shuffle partition. The scenario measures, in runs one after the
other:

- each record's latency, from the two topics' timestamps, under micro-batch and then real-time;
- what the checkpoint holds per duration (an offsets/N and a commits/N each);
- a kill -9 mid-duration, and what a restart replays: everything after the last commit, which
  Spark's Kafka sink writes again (at least once), counted, set beside the app's exactly-once
  sink under micro-batch (`query-output/`, one file per batch), which writes nothing twice;
- the counter's refusal, in Spark's words.

It needs PySpark 4.2 or newer and Spark's connector (`--stack apache/connector`, the default);
elsewhere it is skipped, saying why.

Usage: `python -m scenarios run real-time-mode --fast`
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from scenarios.catalog import steps
from scenarios.checker.expectations import check, within
from scenarios.engine.observers.topic_records import ReadRecord, json_values, topic_records
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.query_rows import read_written
from spark_app.query.real_time import FIRST_LINE, MIN_DURATION_SEC
from spark_app.runtime.spark_version import installed_spark_version, major_minor
from spark_app.settings import SparkAppSettings

__all__ = ["SCENARIO", "run", "latencies_ms", "duplicated_offsets"]

QUERY = PROJECT_ROOT / "queries" / "real_time" / "echo.py"
DURATION_SEC = MIN_DURATION_SEC
# How long each measured run reads the producer's records: a few durations.
MEASURE_SEC = 3 * DURATION_SEC
_REFUSAL = "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST"


def latencies_ms(inputs: list[ReadRecord], outputs: list[ReadRecord]) -> list[int]:
    """Each output record's timestamp minus that of the input record it echoes (by offset)."""
    sent = {r.offset: r.timestamp_ms for r in inputs}
    rows = json_values(outputs)
    return [o.timestamp_ms - sent[row["offset"]] for o, row in zip(outputs, rows, strict=True)]


def duplicated_offsets(outputs: list[ReadRecord]) -> list[int]:
    """The input offsets the output topic holds more than once."""
    seen: dict[int, int] = {}
    for row in json_values(outputs):
        seen[row["offset"]] = seen.get(row["offset"], 0) + 1
    return sorted(o for o, n in seen.items() if n > 1)


def _unavailable(stage: Stage) -> str | None:
    version = stage.settings.spark_version or installed_spark_version()
    if major_minor(version) < FIRST_LINE:
        return f"Real-time Mode came to PySpark with 4.2.0; this run is on {version}"
    if stage.settings.source != "spark-kafka":
        return "Real-time Mode reads through Spark's Kafka connector; run --stack apache/connector"
    return None


def _median(values: list[int]) -> int:
    return int(statistics.median(values)) if values else -1


def _measure(stage: Stage, topic: str, checkpoint: Path, **options: object) -> list[int]:
    """Run the echo query into `topic` for MEASURE_SEC on a new checkpoint, stop it, and
    return each record's latency (the records sent while it ran)."""
    stage.kafka.add_topic(topic, [])
    stage.app.start(
        query=QUERY,
        output_topic=topic,
        on_negative_key="ignore",
        starting_offsets="latest",
        checkpoint_dir=checkpoint,
        **options,
    )
    _wait_for_records(stage, topic, 3)
    time.sleep(MEASURE_SEC)  # a measured stretch of running, not a wait for a condition
    stage.app.stop()
    inputs = topic_records(stage.kafka.bootstrap_servers, stage.kafka.topic)
    return latencies_ms(inputs, topic_records(stage.kafka.bootstrap_servers, topic))


def _wait_for_records(stage: Stage, topic: str, count: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while len(topic_records(stage.kafka.bootstrap_servers, topic, 1.0)) < count:
        if time.monotonic() > deadline or not stage.app.running:
            raise TimeoutError(
                f"{topic} holds fewer than {count} records after {timeout:g} s: "
                f"{stage.app.last_words()}"
            )
        time.sleep(0.5)


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer, one message per interval, on one partition",
            why="Real-time Mode needs a core per Kafka partition: one partition and local[2] "
            "leave a core for the driver",
            production="give a real-time query a core per partition it reads, and keep AQE off "
            "as Spark's own suites do",
            question="Which PySpark line offers trigger(realTime=...), and on which source?",
            answer="PySpark 4.2.0 and newer, reading through Spark's Kafka connector.",
            giveaway=("4.2.0",),
            checks=("a line and a source that have Real-time Mode",),
        )
    ):
        unavailable = _unavailable(stage)
        stage.expect(
            check(
                "a line and a source that have Real-time Mode",
                unavailable is None,
                "PySpark 4.2 or newer with Spark's connector",
                unavailable or "yes",
            )
        )
        if unavailable is not None:
            return
        stage.kafka.start()
        stage.kafka.wait_for_latest(3, "three messages in the topic")

    folders = stage.app.folders.root
    with stage.step(
        Step(
            "Micro-batch, then real-time: each record's latency, in runs one after the other",
            happens=f"the echo query runs {MEASURE_SEC:g} s with a micro-batch trigger of "
            f"{stage.timings.trigger_sec:g} s, then {MEASURE_SEC:g} s with "
            f'trigger(realTime="{DURATION_SEC:g} seconds"), each to a topic of its own',
            watch="the app's batch lines, under each trigger in turn",
            why="micro-batch plans, runs and commits a batch before the sink sees a record; "
            "real-time hands each record to the sink as it arrives and closes the batch at the "
            "duration's end",
            production="Real-time Mode is for latency in milliseconds: the duration only sets "
            "how often the checkpoint is written",
            question="Which run's median latency is lower, and by how much?",
            answer="Real-time's, by an order of magnitude: milliseconds against micro-batch's "
            "trigger interval and batch time.",
            giveaway=("milliseconds", "order of magnitude"),
            checks=("real-time's median latency is a tenth of micro-batch's or less",),
        )
    ):
        micro = _measure(stage, "EchoMicroBatch", folders / "micro-batch")
        real = _measure(
            stage,
            "EchoRealTime",
            folders / "real-time",
            trigger="real-time",
            real_time_sec=DURATION_SEC,
        )
        stage.fact("latency_ms", {"micro_batch": micro, "real_time": real})
        stage.say(
            f"median latency: micro-batch {_median(micro)} ms ({len(micro)} records), "
            f"real-time {_median(real)} ms ({len(real)} records)"
        )
        stage.expect(
            check(
                "real-time's median latency is a tenth of micro-batch's or less",
                bool(micro and real) and _median(real) * 10 <= _median(micro),
                "real-time ≤ micro-batch / 10",
                f"{_median(real)} ms against {_median(micro)} ms",
            )
        )

    with stage.step(
        Step(
            "What the checkpoint holds per duration",
            happens="the real-time run's checkpoint is read without Spark",
            watch="the app is down; the producer's lines go on",
            why="a real-time batch is the duration: it is planned at its start (offsets/N) and "
            "committed at its end (commits/N)",
            production="the duration is the checkpoint interval: a shorter one writes more files "
            "and replays less after a crash",
            question=f"How many batches did {MEASURE_SEC:g} s of real-time write?",
            answer=f"About one per duration: {MEASURE_SEC:g} s over {DURATION_SEC:g} s, give or "
            "take the start and the stop.",
            giveaway=("one per duration",),
            checks=("batches in the real-time checkpoint",),
        )
    ):
        info = read_checkpoint(folders / "real-time")
        stage.fact("real_time_batches", {"offsets": info.offset_ids, "commits": info.commit_ids})
        expected = int(MEASURE_SEC / DURATION_SEC)
        stage.expect(
            within("batches in the real-time checkpoint", len(info.commit_ids), 1, expected + 3)
        )

    with stage.step(
        Step(
            "kill -9 mid-duration, and the Kafka sink's duplicates",
            happens="the real-time query runs again on its checkpoint; half-way through a "
            "duration it is killed with kill -9, then restarted",
            watch="the app's lines: the kill, then the restart's first batch",
            why="the records written since the last commit have no commit: the restart reads "
            "them again from the planned batch's start, and Spark's Kafka sink writes them again",
            production="Spark's Kafka sink is at least once: key the output so a reader can "
            "drop the repeats, or accept them",
            question="Which records appear twice in the output topic after the restart?",
            answer="Exactly those written between the last commit and the kill: up to one "
            "duration's worth.",
            giveaway=("between the last commit and the kill",),
            checks=("duplicated offsets are those written after the last commit",),
        )
    ):
        _kill_mid_duration(stage, folders / "real-time")

    with stage.step(
        Step(
            "The same kill under micro-batch, into the app's exactly-once sink",
            happens="the echo query runs under micro-batch into the app's own sink "
            "(query-output/, a file per batch), is killed with kill -9 and restarted",
            watch="the app's batch lines, the kill, then the restart's",
            why="the exactly-once sink writes batch N's file whole, and a replay writes the same "
            "file again: nothing twice",
            production="when duplicates matter more than milliseconds, micro-batch with an "
            "idempotent sink; Real-time Mode's allowlist has no foreachBatch",
            question="How many records appear twice after the restart?",
            answer="None: a replayed batch rewrites its own file.",
            giveaway=("none",),
            checks=("no record twice in the exactly-once sink",),
        )
    ):
        _exactly_once_beside(stage, folders / "exactly-once")

    with stage.step(
        Step(
            "The counter under Real-time Mode",
            happens="the app's counter (applyInPandasWithState into foreachBatch) is started with "
            "--trigger real-time",
            watch="the app's last line as it stops",
            why="Real-time Mode's allowlist admits stateless operators and the Kafka, foreach, "
            "console and memory sinks only",
            production="move a stateful query to Real-time Mode only on a line that runs it "
            "(4.3, JVM operators, checkpoint format 2); a Python state function never is",
            question="What does Spark say?",
            answer=f"It refuses the query as it starts: {_REFUSAL}.",
            giveaway=(_REFUSAL,),
            checks=("the counter is refused in Spark's words",),
        )
    ):
        stage.app.start(trigger="real-time", checkpoint_dir=folders / "counter")
        stage.app.wait_exit(stage.timings.spark_start_timeout_sec)
        words = stage.app.last_words()
        stage.fact("counter_refusal", words)
        stage.expect(
            check(
                "the counter is refused in Spark's words",
                _REFUSAL in words and "REAL_TIME_MODE_REFUSED" in words,
                f"REAL_TIME_MODE_REFUSED: [{_REFUSAL}] …",
                words[-300:],
            )
        )


def _kill_mid_duration(stage: Stage, checkpoint: Path) -> None:
    topic = "EchoRealTime"
    stage.app.start(
        query=QUERY,
        output_topic=topic,
        on_negative_key="ignore",
        checkpoint_dir=checkpoint,
        trigger="real-time",
        real_time_sec=DURATION_SEC,
    )
    before = len(read_checkpoint(checkpoint).commit_ids)
    _wait_for_commit(stage, checkpoint, before + 1)
    time.sleep(DURATION_SEC / 2)  # half-way through the next duration, by the clock
    stage.app.kill()
    info = read_checkpoint(checkpoint)
    # Where the restart reads from: the start of the planned batch the kill left uncommitted.
    committed_until = min((info.resume_from or {0: 0}).values())
    written = json_values(topic_records(stage.kafka.bootstrap_servers, topic))
    predicted = sorted({r["offset"] for r in written if r["offset"] >= committed_until})
    stage.fact("replay_predicted", {"from_offset": committed_until, "offsets": predicted})
    stage.say(
        f"killed with {len(predicted)} records written after the last commit "
        f"(offsets from {committed_until}): the restart writes them again"
    )
    stage.app.start(
        query=QUERY,
        output_topic=topic,
        on_negative_key="ignore",
        checkpoint_dir=checkpoint,
        trigger="real-time",
        real_time_sec=DURATION_SEC,
    )
    _wait_for_commit(stage, checkpoint, len(info.commit_ids) + 1)
    stage.app.stop()
    both = duplicated_offsets(topic_records(stage.kafka.bootstrap_servers, topic))
    # A graceful stop mid-duration replays too (the app's stop does not wait for the duration's
    # end: the first run, 29 Nov, found the measured run's stop written twice): kept apart.
    duplicated = [o for o in both if o >= committed_until]
    stage.fact("duplicated_offsets", duplicated)
    stage.fact("duplicated_by_the_earlier_stop", [o for o in both if o < committed_until])
    if len(both) > len(duplicated):
        stage.say(
            f"{len(both) - len(duplicated)} earlier offsets are in the topic twice too: the "
            "measured run's stop came mid-duration, and this run replayed its uncommitted part"
        )
    stage.expect(
        check(
            "duplicated offsets are those written after the last commit",
            duplicated == predicted and len(predicted) > 0,
            f"{len(predicted)} offsets from {committed_until}",
            f"{len(duplicated)}: {duplicated[:5]}…" if duplicated else "none",
        )
    )


def _wait_for_commit(stage: Stage, checkpoint: Path, count: int, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while len(read_checkpoint(checkpoint).commit_ids) < count:
        if time.monotonic() > deadline or not stage.app.running:
            raise TimeoutError(
                f"{checkpoint} has fewer than {count} commits: {stage.app.last_words()}"
            )
        time.sleep(0.2)


def _exactly_once_beside(stage: Stage, checkpoint: Path) -> None:
    stage.app.start(query=QUERY, on_negative_key="ignore", checkpoint_dir=checkpoint)
    _wait_for_commit(stage, checkpoint, 3)
    stage.app.kill()
    done = len(read_checkpoint(checkpoint).commit_ids)
    stage.app.start(query=QUERY, on_negative_key="ignore", checkpoint_dir=checkpoint)
    _wait_for_commit(stage, checkpoint, done + 2)
    stage.app.stop()
    # The sink's rows as the oracle reads them (query_rows.py owns the batch files' form).
    written = read_written(SparkAppSettings(log_dir=stage.app.folders.log).query_output)
    rows = [int(row["offset"]) for row in written]
    twice = sorted({o for o in rows if rows.count(o) > 1})
    stage.fact("exactly_once_rows", {"rows": len(rows), "twice": twice})
    stage.expect(
        check(
            "no record twice in the exactly-once sink",
            bool(rows) and not twice,
            "every offset once",
            f"{len(rows)} rows, {len(twice)} offsets twice",
        )
    )


SCENARIO = Scenario(
    name="real-time-mode",
    title="Real-time Mode: milliseconds per record, a whole duration replayed after a crash",
    summary="A stateless Kafka-to-Kafka query under micro-batch and then "
    'trigger(realTime="5 seconds") (PySpark 4.2): per-record latency measured in both, the '
    "checkpoint written once per duration, a kill -9 mid-duration replaying everything since "
    "the last commit into Spark's at-least-once Kafka sink (duplicates counted, beside the "
    "app's exactly-once sink under micro-batch), and the counter refused in Spark's words.",
    origin="PySpark 4.2's Real-time Mode",
    about="what Real-time Mode changes for a checkpoint: how often it is written, and what a "
    "crash replays",
    run=run,
    takes="about 2.8 min: seven Spark starts, four of them in Real-time Mode, two measured runs "
    "of 15 s each (167 s on 29 Nov 2026, the lock's PySpark 4.2.0)",
    without_query="it runs its own stateless query (queries/real_time/echo.py): Real-time "
    "Mode's allowlist admits no stateful one",
)
