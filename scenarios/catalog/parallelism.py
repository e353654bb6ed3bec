"""Parallelism: a topic with several partitions, read in parallel, exactly once across them.

Seed 002 explains that a Kafka topic's partitions bound a consumer's read parallelism. Here the
producer creates the topic with three partitions (value v goes to partition (v-1) % 3), and the
Spark app's source plans one input partition, one task, per Kafka partition. The scenario shows
it in the app's per-batch console line (one offset range per partition) and in the checkpoint
(`offsets/N` holds one offset per partition), kills the app in the middle of a batch, and checks
that the restart replays exactly the per-partition ranges the checkpoint recorded. At the end
every value is in the output once and the count runs 1..N, although within a batch the values
come in partition order: Kafka orders messages within a partition, not across partitions.

With a user's query (`--query FILE.py`) the same three partitions, the same kill and the same
replay of the checkpoint's ranges (read from the console and the checkpoint, as for the counter;
where the kill landed, from the query's batch files); at the end the oracle judges the query's
rows against every record of every partition, as the producer's record has them. The order of
the output log has no counterpart in a query's rows, which do not keep the order records were
read in.

Usage: `python -m scenarios run parallelism --fast`
"""

from __future__ import annotations

import random

from scenarios.catalog import steps
from scenarios.checker.expectations import check, equals, exactly_once
from scenarios.engine.faults.kills import kill_at
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.batch_line import BatchLine, parse_batch_lines
from spark_app.offsets import TopicPartition, offsets_to_text

__all__ = ["PARTITIONS", "SCENARIO", "run"]

PARTITIONS = 3


def _partition_ends(total: int) -> list[int]:
    """How many of the values 1..total each partition holds, by the producer's round robin."""
    return [len(range(p + 1, total + 1, PARTITIONS)) for p in range(PARTITIONS)]


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            title=f"Start Kafka with a topic of {PARTITIONS} partitions, and the producer",
            happens=f"python -m kafka_app --partitions {PARTITIONS}: the producer creates the "
            f"topic with {PARTITIONS} partitions and sends its values 1, 2, 3, … round robin over "
            "them, starting at partition 0",
            watch="the producer's lines below: `Experience [earliest:latest]: key -> value`, "
            "earliest:latest summed over the partitions",
            why="a partition is Kafka's unit of order and of parallelism: one consumer thread per "
            "partition at most (seed 002)",
            production="choose the partition count for the read parallelism you will need; "
            "adding partitions later changes which partition a key goes to",
            question=f"Which partition will value 5 go to, with {PARTITIONS} partitions?",
            answer=f"Partition {(5 - 1) % PARTITIONS}: value v goes to (v-1) % {PARTITIONS}, so "
            "each partition holds every third value (checked at the end: each partition's "
            "committed offset is its count of messages).",
            giveaway=(f"partition {(5 - 1) % PARTITIONS}:", "(v-1) %"),
            checks=("each partition's committed offset is its message count",),
        )
    ) as kafka_step:
        stage.kafka.start(partitions=PARTITIONS)
    topic = stage.kafka.topic

    with stage.step(
        steps.first_start(
            title=f"Start the Spark app on the {PARTITIONS}-partition topic",
            happens="a new query on the topic, from its earliest offsets; the Spark app runs on "
            "local[2]: two cores for a batch's tasks",
            watch="the app's batch lines below: `batch N: Experience-0 [a, b), … rows=… "
            "count=…`, one per batch: how many ranges each names",
            why="Spark's Kafka source (and ours) maps partitions one to one: no receivers, no "
            "consumer group; each range is one Spark task, and the checkpoint keeps one offset "
            "per partition",
            production="more Kafka partitions = more parallel read tasks; `minPartitions` in "
            "Spark's Kafka source splits large ranges further",
            question="How many offset ranges will one batch read, and how many offsets will the "
            "checkpoint keep per batch?",
            answer=f"{PARTITIONS} of each: one range per Kafka partition, each one Spark task, "
            "and one offset per partition in offsets/N.",
            giveaway=("one range per kafka partition", "one offset per partition"),
            checks=(
                "a batch reads one range per Kafka partition",
                "the checkpoint keeps one offset per partition",
            ),
        )
    ):
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)
        _show_parallel_read(stage, topic)

    with stage.step(
        Step(
            "kill -9 in the middle of a batch, then restart",
            happens=f"the kill is aimed just after Spark wrote offsets/N (all {PARTITIONS} "
            "ranges) and before it committed the batch; then the app starts again on the same "
            "checkpoint",
            watch="the app's batch lines below stop at the kill; then the restarted app's first "
            "batch line: its batch number and its ranges",
            why="a restart replays the uncommitted batch with the same end offset for every "
            "partition; partitions are never replayed or skipped one by one",
            production="the same holds with hundreds of partitions: the offsets in one offsets/N "
            "file are the batch's identity",
            question="After the restart, will the first batch read the same ranges as the killed "
            "one, or new ones?",
            answer="The same: batch N again with exactly the ranges offsets/N holds, for every "
            "partition at once.",
            giveaway=("the same:", "for every partition at once"),
            checks=("the restart replays the checkpoint's ranges",),
        )
    ):
        _kill_and_replay(stage)

    with stage.step(
        steps.finish(
            title="Stop the producer, let the app catch up, check the output and the checkpoint",
            happens="the producer stops; the app reads what is left and is stopped; the scenario "
            "verifies the log and compares the checkpoint's offsets per partition with what the "
            "producer sent to each",
            why="Kafka orders messages within a partition only; the count is consistent because "
            "the state numbers each batch's rows in (partition, offset) order, replays included",
            production="never rely on order across partitions; key your data so that what must "
            "stay in order shares a partition",
            question="Will the output log list the values in the order they were sent?",
            answer="No: within a batch they come partition by partition, so some value is "
            "followed by a smaller one; still every value is there once, with Count = 1..N.",
            giveaway=("partition by partition", "followed by a smaller"),
            checks=(
                "exactly once",
                "the log follows partition order within a batch, not send order",
            ),
        )
    ):
        _finish(stage, topic, kafka_step)


def _kill_and_replay(stage: Stage) -> None:
    """kill -9 mid-batch; the restart's first batch line must match what the checkpoint says."""
    # The jitter after offsets/N is seeded, so that a run repeats.
    landing = kill_at(stage, "mid-batch", random.Random(1), partitions=PARTITIONS)
    resume = read_checkpoint(stage.folders.checkpoints)
    stage.fact(
        "kill",
        {"landed": landing.landed, "batch": landing.batch_id, "values": list(landing.batch_values)},
    )
    # Each start has its own output file, so this one's first batch line is the restart's first.
    stage.app.start()
    stage.app.wait_while_up(lambda: parse_batch_lines(stage.app.output()), "its first batch line")
    first = parse_batch_lines(stage.app.output())[0]
    stage.say(
        f"first batch after the restart: batch {first.batch_id}, "
        f"{offsets_to_text(first.start)} -> {offsets_to_text(first.end)}"
    )
    expected_start = resume.resume_from or {}
    if resume.pending is not None:
        expected = (
            f"batch {resume.pending.batch_id}, {offsets_to_text(expected_start)} -> "
            f"{offsets_to_text(resume.pending.end or {})}"
        )
        held = (
            first.batch_id == resume.pending.batch_id
            and first.start == expected_start
            and first.end == resume.pending.end
        )
    else:
        expected = f"a batch starting at {offsets_to_text(expected_start)}"
        held = first.start == expected_start
    stage.expect(
        check(
            "the restart replays the checkpoint's ranges",
            held,
            expected,
            f"batch {first.batch_id}, {offsets_to_text(first.start)} -> "
            f"{offsets_to_text(first.end)}",
        ),
    )


def _wide(output: str) -> list[BatchLine]:
    return [b for b in parse_batch_lines(output) if len(b.end) == PARTITIONS]


def _show_parallel_read(stage: Stage, topic: str) -> None:
    # The console line comes from a listener after the batch's commit, a moment after its output.
    stage.app.wait_while_up(
        lambda: _wide(stage.app.output()), f"a batch line with {PARTITIONS} ranges"
    )
    lines, wide = parse_batch_lines(stage.app.output()), _wide(stage.app.output())
    stage.say(
        f"console: batch {wide[-1].batch_id} read "
        + ", ".join(
            f"{tp} [{wide[-1].start.get(tp, 'start')}, {end})"
            for tp, end in sorted(wide[-1].end.items())
        )
    )
    stage.expect(
        check(
            "a batch reads one range per Kafka partition",
            bool(wide),
            f"a batch line with {PARTITIONS} ranges",
            f"{len(wide)} of {len(lines)} batch lines with {PARTITIONS} ranges",
        ),
    )
    info = read_checkpoint(stage.folders.checkpoints)
    end = info.last_committed.end if info.last_committed else None
    stage.say(f"checkpoint offsets/{info.last_committed_id}: {offsets_to_text(end or {})}")
    partitions = sorted(tp.partition for tp in (end or {}) if tp.topic == topic)
    stage.expect(
        check(
            "the checkpoint keeps one offset per partition",
            partitions == list(range(PARTITIONS)),
            list(range(PARTITIONS)),
            partitions,
        ),
    )


def _finish(stage: Stage, topic: str, kafka_step: Step) -> None:
    report = None
    if stage.query is None:
        final = stage.kafka.stop_producer()
        total = stage.fact("messages_sent", final.latest)
        stage.catch_up(total)
        stage.app.stop()
        report = stage.output.verify_sent()
        stage.expect(exactly_once(report, total))
    else:
        # The oracle reads every partition's records from the producer's record of them.
        total = stage.finish_exactly_once()
    info = read_checkpoint(stage.folders.checkpoints)
    end = info.last_committed.end if info.last_committed else {}
    actual = [(end or {}).get(TopicPartition(topic, p)) for p in range(PARTITIONS)]
    wanted = _partition_ends(total)
    stage.fact("committed_per_partition", actual)
    # Step 1's answer: the round robin decides how many messages each partition holds.
    stage.expect(
        equals("each partition's committed offset is its message count", actual, wanted),
        step=kafka_step,
    )
    if report is None:  # a query's rows do not keep the order its records were read in
        return
    descents = sum(1 for a, b in zip(report.values, report.values[1:]) if b < a)
    stage.fact("values_out_of_send_order", descents)
    stage.expect(
        check(
            "the log follows partition order within a batch, not send order",
            descents > 0,
            "some value followed by a smaller one",
            f"{descents} such place(s)",
        )
    )


SCENARIO = Scenario(
    name="parallelism",
    title=f"{PARTITIONS} Kafka partitions read in parallel; a kill -9; exactly once across them",
    summary=f"A topic with {PARTITIONS} partitions: one Spark input partition per Kafka partition "
    "(per-batch console line, offsets in the checkpoint), a kill -9 mid-batch whose "
    "restart replays the same ranges, and every value once with Count = 1..N.",
    origin="seed 002",
    about=f"a topic of {PARTITIONS} partitions: how Spark reads it, and what a kill -9 does "
    "to a batch that spans them",
    run=run,
    takes_query=True,
    with_query=(
        "a topic of three partitions read in one range each, a kill -9 just after `offsets/N` "
        "and the restart's first batch held to the checkpoint's ranges; where the kill "
        "landed, from the batch files; the oracle at the end over every partition's records "
        "(the output log's order across partitions has no counterpart in a query's rows)"
    ),
)
