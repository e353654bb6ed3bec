"""Partitions added: the topic grows from 1 to 3 partitions, once while the query runs and once
while it is down; when the query reads the new partitions, and from which offset. Then the
topic is recreated with fewer partitions.

What production asks when someone adds partitions to a topic a stateful query reads:

1. The topic grows 1 -> 2 while the query runs: the query reads the new partition without a
   restart, at the first batch it plans after Kafka's metadata shows it, and from the
   partition's earliest offset (0), so the messages that landed there before are not skipped.
2. The topic grows 2 -> 3 while the query is down, the producer writes to the new partition,
   and the query is restarted with `--starting-offsets latest`: the checkpoint has no offset
   for the new partition, and the source starts it at its earliest offset, not at latest
   (`startingOffsets` counts for a new query only).
3. Every message once, the count 1..N, each partition's committed offset its end offset.
4. The topic is deleted and created again with one partition while the query is down. The
   restart (failOnDataLoss=true, the default) fails with KAFKA_DATA_LOSS.PARTITIONS_DELETED:
   the checkpoint names partitions Kafka no longer has. With failOnDataLoss=false the query
   goes on, from where the failed run planned it: the new topic's messages up to that batch's
   end are skipped (checked, exactly those), everything after is read once.

The app writes `--output-format v2`, whose lines name the partition and offset each message
was read from (`v2 Experience-2@0: 19 -> 19`): the first line of a new partition says where
the query started it. Kafka grows the topic through the producer's command line
(`python -m kafka_app --partitions N --grow-partitions`), which is restarted to spread its
values over the new partitions (value v to partition (v-1) % N).

With a user's query (`--query FILE.py`) the topic grows and is recreated alike; a query's rows do
not say which partition and offset they were read from, so the checkpoint says when the query
reads a new partition (its committed end offsets), and the oracle at the end of part 3 judges
the rows against every record sent, the new partitions' as the producer's record has them: a
new partition not read from its earliest offset is a record missing there. Part 4's failed
restart is the source's and the checkpoint's, as for the counter; after the lenient one, what
the query read is told by the checkpoint and the batch lines' row counts, not by the oracle: the
producer's record names the deleted topic's records and the new topic's by the same topic,
partition and offsets, so the skipped ones cannot be told from the old ones there. The order of
the output log, and the partition each value was read from, have no counterpart in a query's
rows.

Usage: `python -m scenarios run partitions-added --fast`
"""

from __future__ import annotations

from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import Check, check, equals, exactly_once, missing_exactly
from scenarios.checker.verify import ValueRange
from scenarios.engine.faults.kills import query_output
from scenarios.engine.observers.kafka_probe import OffsetWindow
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import BatchOffsets, committed_batches, read_checkpoint
from spark_app.errors import PartitionsDeletedError, error_in_text
from spark_app.lines.batch_line import parse_batch_lines
from spark_app.lines.output_line import MessageLine
from spark_app.offsets import TopicPartition, offsets_to_text

__all__ = ["GROWN_DOWN", "GROWN_LIVE", "SCENARIO", "WAITING_IN_NEW", "run"]

GROWN_LIVE = 2  # partitions after the grow while the query runs
GROWN_DOWN = 3  # ... and after the grow while it is down
WAITING_IN_NEW = 3  # messages the third partition holds before the query is restarted
_V2 = "v2"  # the output format whose lines name partition and offset
CONDITION = PartitionsDeletedError.token  # the recreated topic's restart fails with it


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            title="Start Kafka with a topic of 1 partition, and the producer",
            happens="a broker and the producer; the topic has one partition for now, and endless "
            "retention",
            why="Kafka appends a message to one partition's log and never moves it: adding "
            "partitions changes where the next messages go, not where the old ones are",
            production="adding partitions does not rebalance a topic's data: the old partitions "
            "keep their messages, the new ones start empty",
            question="Later, partitions are added to the topic. Will Kafka move some of the "
            "messages already in partition 0 to the new ones?",
            answer="No: a message stays in the partition it was written to; only messages sent "
            "after the grow go to the new partitions (checked at the end: every value sent "
            "before the first grow was read from partition 0).",
            giveaway=("stays in the partition", "only messages sent after"),
            checks=("the messages sent before the grow stay in partition 0",),
        )
    ) as kafka_step:
        stage.kafka.start()
    topic = stage.kafka.topic

    with stage.step(
        steps.first_start(
            title="Start the app on a new checkpoint, with --output-format v2",
            happens="python -m spark_app --output-format v2 on a new checkpoint: each output line "
            "names the partition and offset it was read from (v2 Experience-0@3: 4 -> 4)",
            why="the checkpoint's offsets/N holds one offset per topic-partition the query knows",
            question="How many offsets does offsets/N hold for a topic of one partition?",
            answer=f"One, for {topic}-0.",
            production="offsets/N lists the partitions a query knows: read it to see what a "
            "restart resumes, partition by partition",
            giveaway=("one, for",),
            checks=("offsets/N holds one partition",),
        )
    ):
        stage.app.start(output_format=_V2)
        stage.output.wait_for_value(stage.timings.run_for_messages)
        # The output is written inside the batch, its commit a moment later.
        known = stage.app.wait_while_up(
            lambda: _partitions_in_checkpoint(stage) or None, "a committed batch in the checkpoint"
        )
        stage.expect(check("offsets/N holds one partition", known == [0], [0], known))

    with stage.step(
        Step(
            f"Grow the topic to {GROWN_LIVE} partitions while the query runs",
            happens=f"python -m kafka_app --partitions {GROWN_LIVE} --grow-partitions: the "
            "producer restarts, adds partition 1 (CreatePartitions) and sends every other value "
            "to it; the app is left running",
            watch=f"the app's batch lines below: when a range of {topic}-1 first appears, and "
            "where it starts",
            why="the source asks Kafka for the subscription's partitions each time it plans a "
            "batch (the connector's admin client on every look-up); a partition missing from the "
            "last offsets/N gets a start of its own: its earliest offset",
            production="adding partitions to a topic a query reads needs no restart and loses "
            "nothing; but a key's next messages may go to another partition (the order per key "
            "holds only within a partition)",
            question=f"The topic grows to {GROWN_LIVE} partitions under the running query: when "
            "does the query read the new partition, and from which offset?",
            answer="Without a restart: the first batch planned after Kafka added the partition "
            "names it in offsets/N (in our runs 0.1 to 1 s later, on every stack, often with end "
            f"offset 0, before any message reached it), and {topic}-1 is read from offset 0, its "
            "earliest, then 1, 2… once each.",
            giveaway=("without a restart", "read from offset 0"),
            checks=(
                "the running query reads the new partition, no restart",
                "the new partition is read from its earliest offset",
                "its offsets are read in order, none skipped or repeated",
            ),
        )
    ):
        sent_before_grow = _grow_while_running(stage)

    tp = TopicPartition(topic, GROWN_DOWN - 1)
    with stage.step(
        Step(
            f"Stop the app, grow the topic to {GROWN_DOWN} partitions, restart with "
            "--starting-offsets latest",
            happens=f"while the app is down the producer adds partition {GROWN_DOWN - 1} and "
            f"writes at least {WAITING_IN_NEW} messages to it; the app restarts on the same "
            "checkpoint, told to start new partitions at latest",
            watch=f"the app's first batch lines below after the restart: the range of {tp}, where "
            "it starts",
            why="a restart takes its offsets from the checkpoint; a partition the checkpoint does "
            "not name is started at its earliest offset, whatever startingOffsets says (that "
            "option is read for a new query only); a new partition that does not start at 0 "
            "would be KAFKA_DATA_LOSS.ADDED_PARTITION_DOES_NOT_START_FROM_OFFSET_ZERO",
            production="startingOffsets cannot skip the backlog of a partition added while the "
            "job was down: it is read from its beginning (cap a large one with "
            "maxOffsetsPerTrigger)",
            question=f"Restarted with --starting-offsets latest while {tp} already holds "
            f"{WAITING_IN_NEW} messages: are they read, or skipped?",
            answer=f"Read: the first batch after the restart starts {tp} at offset 0, its "
            "earliest, and every message it held is in the output once.",
            giveaway=("read:", "every message it held"),
            checks=(
                "the new partition is read from its earliest offset, not latest",
                "every message it held before the restart is read, once each",
            ),
        )
    ):
        _grow_while_down(stage, tp)

    with stage.step(
        steps.finish(
            title="Stop the producer, let the app catch up, check the output and the checkpoint",
            happens="the producer stops; the app reads what is left and is stopped; the scenario "
            "verifies the output log against what the producer sent, and offsets/N against "
            "each partition's end offset",
            why="each partition's offsets are tracked on their own in the checkpoint; the count "
            "is state, which knows nothing of partitions. Kafka orders messages within a "
            "partition only: once the producer's mapping spreads values over several "
            "partitions, a batch returns them partition by partition",
            production="after adding partitions, check offsets/N lists them all: a partition "
            "missing there is one the query does not read; and what relied on one partition's "
            "order (per key, or overall) must not rely on it any more",
            question="Was any message lost or counted twice while the topic grew twice, and is "
            "the output still in the order the values were sent?",
            answer=f"None lost or doubled: every value once with Count = 1..N, and offsets/N "
            f"holds all {GROWN_DOWN} partitions at their end offsets. The order is not kept: in "
            "send order while the topic had one partition, not after it grew.",
            giveaway=("none lost or doubled", "the order is not kept"),
            checks=(
                "exactly once",
                "offsets/N holds every partition at its end offset",
                "the output follows send order with one partition, not after the grow",
            ),
        )
    ):
        _finish(stage)
        if stage.query is None:  # read from the v2 lines: a query's rows name no partition
            stage.expect(_stayed_in_partition_0(stage, sent_before_grow), step=kafka_step)

    with stage.step(
        Step(
            "Delete the topic, create it again with 1 partition, restart the app",
            happens=f"while the app is down the topic's {GROWN_DOWN} partitions and their data "
            "are deleted (kafka-topics --delete), the topic is created again with one partition "
            f"and the producer writes at least {WAITING_IN_NEW} messages to it; the app restarts "
            "on the same checkpoint with failOnDataLoss=true, the default",
            watch="the app's lines below: a batch line if it reads on, its one-line error if it "
            "stops",
            why=f"the checkpoint names {topic}-1 and {topic}-2, which Kafka no longer has: the "
            "source plans the batch (offsets/N) and then refuses to drop two partitions without a "
            "word; it checks deleted partitions before a partition whose offset went back "
            "(PARTITION_OFFSET_CHANGED, the other sign of a recreated topic)",
            production="a topic recreated under a checkpoint is a new stream: start a new "
            "checkpoint for it; failOnDataLoss=false is the other way (next step)",
            question=f"The topic now has 1 partition where the checkpoint knows {GROWN_DOWN}: does "
            "the restart fail, and with which error?",
            answer=f"It fails: exit code non-zero with {CONDITION}, naming the partitions that "
            "disappeared; the batch was planned (offsets/N with one partition) and nothing new "
            "was written.",
            giveaway=(CONDITION, "it fails:"),
            checks=(
                "the restart fails",
                "the error is Spark's data-loss condition for deleted partitions",
                "the error names the partitions that disappeared",
                "the batch was planned with the new topic's one partition",
                "nothing new was written",
            ),
        )
    ):
        planned_end = _recreated_smaller(stage)

    with stage.step(
        Step(
            "Restart with --fail-on-data-loss false",
            happens="the same checkpoint; the batch the failed run planned is replayed first; "
            "then the producer stops and the app catches up",
            watch=f"the app's batch lines below: whether they go on, and where {topic}-0's range "
            "starts",
            why="with failOnDataLoss=false the source warns (in spark.log) instead of failing: "
            f"the deleted partitions are dropped, and {topic}-0's range, from the checkpoint's "
            "offset down to the new topic's end, is negative and dropped too; the next batch "
            "starts at the end the failed run planned, so the new topic's messages before it are "
            "never read",
            production="failOnDataLoss=false trades a failing query for silent gaps: alert on its "
            "warnings (or the dataLoss metrics) if you set it",
            question="Restarted with failOnDataLoss=false: does the query go on, and does it read "
            "the new topic from its first message?",
            answer="It goes on, but not from the first message: the new topic's messages up to "
            f"the end the failed run planned ({planned_end} here) are skipped, exactly those; "
            "every later one is read once.",
            giveaway=("not from the first message", "are skipped"),
            checks=("missing values", "every other value once"),
        )
    ):
        _recreated_lenient(stage, planned_end)


def _grow_while_running(stage: Stage) -> int:
    """Grow the topic under the running query; the last value sent before the grow."""
    topic = stage.kafka.topic
    # The last batch planned before the grow: the highest offsets/N the checkpoint holds.
    before = stage.fact(
        "last_batch_before_grow",
        max(read_checkpoint(stage.folders.checkpoints).offset_ids, default=None),
    )
    # Every value up to Kafka's latest offset now is in partition 0, the only one so far.
    sent_before = stage.kafka.window().latest
    stage.kafka.grow_partitions(GROWN_LIVE)
    tp = TopicPartition(topic, 1)
    batch = stage.app.wait_while_up(
        lambda: _first_batch_naming(stage, tp), f"a committed offsets/N naming {tp}"
    )
    if stage.query is not None:
        _query_reads_new_partition(stage, tp, batch, before)
        return sent_before
    first = stage.app.wait_while_up(
        lambda: _first_from(stage, 1), f"a message from {tp} in the output"
    )
    read = stage.app.wait_while_up(
        lambda: _offsets_read(stage, 1, WAITING_IN_NEW),
        f"{WAITING_IN_NEW} messages from {tp} in the output",
    )
    stage.fact("partition_1_first_batch", batch.batch_id)
    stage.fact("partition_1_end_in_first_batch", batch.end[tp])
    stage.fact("partition_1_first_offset", first.offset)
    stage.say(
        f"last batch planned before the grow: batch {before} (a batch planned while the "
        f"producer restarted may not name {tp} yet); {tp} first named by batch "
        f"{batch.batch_id}, with end offsets {offsets_to_text(batch.end)}; first line "
        f"from it: {tp}@{first.offset} value {first.value}"
    )
    stage.expect(
        check(
            "the running query reads the new partition, no restart",
            stage.app.running,
            "the app still running, a message from partition 1",
            f"value {first.value} from {tp}@{first.offset}, app "
            f"{'running' if stage.app.running else 'down'}",
        )
    )
    stage.expect(
        check(
            "the new partition is read from its earliest offset",
            first.offset == 0,
            f"first line from {tp} at offset 0",
            f"offset {first.offset}",
        )
    )
    stage.expect(
        check(
            "its offsets are read in order, none skipped or repeated",
            read == list(range(len(read))),
            f"offsets 0..{len(read) - 1} once each",
            f"{read[:12]}{'…' if len(read) > 12 else ''}",
        )
    )
    return sent_before


def _query_reads_new_partition(
    stage: Stage, tp: TopicPartition, batch: BatchOffsets, before: int | None
) -> None:
    """With a query: the checkpoint commits the new partition's first messages, no restart.
    From which offset they were read, the oracle says at the end (their records are in the
    producer's record)."""
    end = stage.app.wait_while_up(
        lambda: _committed_at_least(stage, tp, WAITING_IN_NEW),
        f"{tp} committed to offset {WAITING_IN_NEW}",
    )
    stage.fact("partition_1_first_batch", batch.batch_id)
    stage.fact("partition_1_end_in_first_batch", batch.end[tp] if batch.end else None)
    stage.say(
        f"last batch planned before the grow: batch {before}; {tp} first named by batch "
        f"{batch.batch_id}, with end offsets {offsets_to_text(batch.end or {})}; the checkpoint "
        f"has committed {tp} to offset {end}"
    )
    stage.expect(
        check(
            "the running query reads the new partition, no restart",
            stage.app.running,
            f"the app still running, {tp} committed to offset {WAITING_IN_NEW} or more",
            f"{tp} committed to offset {end}, app {'running' if stage.app.running else 'down'}",
        )
    )


def _grow_while_down(stage: Stage, tp: TopicPartition) -> None:
    stage.app.stop()
    stage.kafka.grow_partitions(GROWN_DOWN)
    window = wait_until(
        lambda: _holding(stage, GROWN_DOWN - 1, WAITING_IN_NEW),
        timeout=60,
        what=f"{WAITING_IN_NEW} messages in {tp}",
        progress=stage.waiting,
    )
    held = stage.fact("partition_2_held_at_restart", window.per_partition[GROWN_DOWN - 1][1])
    stage.say(
        f"{tp} holds {held} message(s) as the app restarts; Kafka's offsets per partition: "
        + ", ".join(f"{p}: {e}:{latest}" for p, (e, latest) in enumerate(window.per_partition))
    )
    stage.app.start(output_format=_V2, starting_offsets="latest")
    if stage.query is not None:
        _query_restart_reads(stage, tp, held)
        return
    first = stage.app.wait_while_up(
        lambda: _first_from(stage, GROWN_DOWN - 1), f"a message from {tp} in the output"
    )
    batch = stage.app.wait_while_up(
        lambda: _first_batch_naming(stage, tp), f"a committed offsets/N naming {tp}"
    )
    stage.fact("partition_2_first_batch", batch.batch_id)
    stage.fact("partition_2_first_offset", first.offset)
    stage.say(
        f"first batch with {tp}: batch {batch.batch_id}, {offsets_to_text(batch.end)}; "
        f"first line from it: {tp}@{first.offset} value {first.value}"
    )
    stage.expect(
        check(
            "the new partition is read from its earliest offset, not latest",
            first.offset == 0,
            f"first line from {tp} at offset 0",
            f"offset {first.offset}",
        )
    )
    read = stage.app.wait_while_up(
        lambda: _offsets_read(stage, GROWN_DOWN - 1, held),
        f"offsets 0..{held - 1} of {tp} in the output",
    )
    stage.expect(
        check(
            "every message it held before the restart is read, once each",
            read[:held] == list(range(held)),
            f"offsets 0..{held - 1} of {tp} once",
            f"first offsets {read[:held]}",
        )
    )


def _query_restart_reads(stage: Stage, tp: TopicPartition, held: int) -> None:
    """With a query: the restarted query commits the new partition up to what it held. Whether
    from offset 0 (startingOffsets latest not applied), the oracle says at the end: a record it
    held and the query skipped is missing from the query's rows."""
    batch = stage.app.wait_while_up(
        lambda: _first_batch_naming(stage, tp), f"a committed offsets/N naming {tp}"
    )
    end = stage.app.wait_while_up(
        lambda: _committed_at_least(stage, tp, held), f"{tp} committed to offset {held}"
    )
    stage.fact("partition_2_first_batch", batch.batch_id)
    stage.say(
        f"first batch with {tp}: batch {batch.batch_id}, {offsets_to_text(batch.end or {})}; "
        f"the checkpoint has committed {tp} to offset {end}"
    )
    stage.expect(
        check(
            "the restarted query reads the new partition up to what it held",
            end >= held,
            f"{tp} committed to offset {held} or more",
            f"offset {end}",
        )
    )


def _finish(stage: Stage) -> None:
    topic = stage.kafka.topic
    if stage.query is not None:
        # Drained (every message committed), stopped, and the oracle over every record sent:
        # the new partitions' too, as the producer's record has them.
        stage.finish_exactly_once()
        ends = [latest for _, latest in stage.kafka.window().per_partition]
    else:
        total = stage.stop_producer_and_drain()
        ends = [latest for _, latest in stage.kafka.window().per_partition]
        # The console line comes from a listener after the batch's commit, a moment after the
        # output.
        stage.app.wait_while_up(
            lambda: _committed_ends(stage, topic) == ends or None,
            "offsets/N at every partition's end offset",
        )
        stage.app.stop()
        stage.expect(exactly_once(stage.output.verify_sent(), total))
    committed = _committed_ends(stage, topic)
    stage.fact("committed_per_partition", committed)
    stage.expect(equals("offsets/N holds every partition at its end offset", committed, ends))
    if stage.query is None:  # a query's rows keep no order of reading
        _expect_order_changed(stage)


def _stayed_in_partition_0(stage: Stage, sent_before: int) -> Check:
    """Values 1..sent_before were sent while the topic had one partition: the output (v2) says
    each was read from partition 0, after both grows."""
    early = [m for m in stage.output.message_lines() if m.value and m.value <= sent_before]
    elsewhere = [m for m in early if m.partition != 0]
    return check(
        "the messages sent before the grow stay in partition 0",
        sent_before > 0 and len(early) == sent_before and not elsewhere,
        f"values 1..{sent_before} read from partition 0",
        f"{len(early)} read, {len(elsewhere)} of them from another partition"
        + (f" (value {elsewhere[0].value} from {elsewhere[0].partition})" if elsewhere else ""),
    )


def _expect_order_changed(stage: Stage) -> None:
    """Before the first line from partition 1 the log is in send order; after it, some value
    is followed by a smaller one (a batch returns its rows partition by partition)."""
    lines = [m for m in stage.output.message_lines() if m.value is not None]
    grown_at = next((i for i, m in enumerate(lines) if m.partition == 1), len(lines))
    before = [m.value or 0 for m in lines[:grown_at]]
    after = [m.value or 0 for m in lines[grown_at:]]
    descents = (
        sum(1 for a, b in zip(before, before[1:]) if b < a),
        sum(1 for a, b in zip(after, after[1:]) if b < a),
    )
    stage.fact("values_out_of_send_order_before_and_after_grow", list(descents))
    stage.expect(
        check(
            "the output follows send order with one partition, not after the grow",
            descents[0] == 0 and descents[1] > 0,
            "no value followed by a smaller one before, some after",
            f"{descents[0]} such place(s) before the grow, {descents[1]} after",
        )
    )


def _recreated_smaller(stage: Stage) -> int:
    """The topic recreated with one partition under the checkpoint: the restart fails; the end
    offset of the new topic's partition in the batch it planned."""
    topic = stage.kafka.topic
    written = stage.output.verify().highest
    files = _batch_files(stage)
    stage.kafka.recreate_topic(1)
    window = wait_until(
        lambda: _holding(stage, 0, WAITING_IN_NEW),
        timeout=60,
        what=f"{WAITING_IN_NEW} messages in the new {topic}-0",
        progress=stage.waiting,
    )
    stage.say(f"the new topic holds {window.latest} message(s) as the app restarts")
    stage.app.start(output_format=_V2)
    code = stage.app.wait_exit(kind="crash")
    output = stage.app.output()
    named = error_in_text(output)
    stage.fact("recreated_error", named.token if named else None)
    stage.expect(check("the restart fails", code != 0, "a non-zero exit code", f"exit code {code}"))
    stage.expect(
        check(
            "the error is Spark's data-loss condition for deleted partitions",
            isinstance(named, PartitionsDeletedError),
            CONDITION,
            str(named)[:200] if named else "no error line",
        )
    )
    gone = [f"{topic}-{p}" for p in range(1, GROWN_DOWN)]
    stage.expect(
        check(
            "the error names the partitions that disappeared",
            named is not None and all(g in str(named) for g in gone),
            ", ".join(gone),
            str(named)[:200] if named else "no error line",
        )
    )
    info = read_checkpoint(stage.folders.checkpoints)
    pending = info.pending.end if info.pending is not None else None
    stage.fact("recreated_planned_batch", info.pending_id)
    stage.fact("recreated_planned_end", offsets_to_text(pending) if pending else None)
    stage.expect(
        check(
            "the batch was planned with the new topic's one partition",
            pending is not None and sorted(tp.partition for tp in pending) == [0],
            f"offsets/N naming {topic}-0 alone, no commits/N",
            f"batch {info.pending_id}: {offsets_to_text(pending)}"
            if pending
            else "no pending batch",
        )
    )
    if stage.query is not None:
        now = _batch_files(stage)
        stage.expect(
            check(
                "nothing new was written",
                now == files,
                f"the query's {len(files)} batch files, none added",
                f"{len(now)} batch files"
                + (f", new: {sorted(now - files)}" if now - files else ""),
            )
        )
        return pending[TopicPartition(topic, 0)] if pending else 0
    after = stage.output.verify()
    stage.expect(
        check(
            "nothing new was written",
            after.highest == written,
            f"highest value still {written}",
            f"highest {after.highest}",
        )
    )
    return pending[TopicPartition(topic, 0)] if pending else 0


def _recreated_lenient(stage: Stage, planned_end: int) -> None:
    if stage.query is not None:
        _recreated_lenient_query(stage, planned_end)
        return
    first_new = (stage.output.verify().highest or 0) + 1
    lost = ValueRange(first_new, first_new + planned_end - 1)
    stage.fact("recreated_skipped", [lost.first, lost.last] if planned_end else [])
    stage.app.start(output_format=_V2, fail_on_data_loss=False)
    stage.output.wait_for_value(first_new + planned_end + 1)
    stage.kafka.stop_producer()
    # The new topic's offsets no longer count the values: its highest value does.
    total = stage.fact("messages_sent", max(stage.kafka.values_in_topic()))
    stage.say(f"the producer stopped after value {total}")
    stage.output.wait_for_value(total)
    stage.app.stop()
    report = stage.output.verify_sent()
    stage.expect(missing_exactly(report, [lost] if planned_end else []))
    stage.expect(
        check(
            "every other value once",
            not report.duplicated and report.highest == total and not report.count_breaks,
            f"1..{total} but the skipped ones, once each",
            f"highest {report.highest}, duplicated {len(report.duplicated)}, "
            f"count breaks {len(report.count_breaks)}",
        )
    )


def _recreated_lenient_query(stage: Stage, planned_end: int) -> None:
    """With a query: the restart goes on, and what it reads of the new topic is told by the
    batch lines' row counts (Spark's numInputRows): every record after the planned end, once,
    none before it. The oracle cannot judge these rows (the module's docstring says why)."""
    topic = stage.kafka.topic
    tp = TopicPartition(topic, 0)
    failed = read_checkpoint(stage.folders.checkpoints).pending_id or 0
    stage.fact("recreated_skipped_offsets", [0, planned_end - 1] if planned_end else [])
    stage.say(
        "the oracle judged the query's rows before the topic was recreated; from here the "
        "checkpoint and the batch lines tell what it reads (the producer's record names the old "
        "topic's records and the new one's by the same partitions and offsets)"
    )
    stage.app.start(output_format=_V2, fail_on_data_loss=False)
    stage.app.wait_while_up(
        lambda: _committed_beyond(stage, failed, tp, planned_end + 1),
        f"{tp} committed past offset {planned_end + 1}",
    )
    stage.kafka.stop_producer()
    latest = stage.fact("recreated_latest", stage.kafka.window().latest)
    stage.say(f"the producer stopped; the new topic ends at offset {latest}")
    stage.app.wait_while_up(
        lambda: _committed_beyond(stage, failed, tp, latest), f"{tp} committed to offset {latest}"
    )
    # The batch line comes from a listener after the commit: wait for the one reaching the end.
    stage.app.wait_while_up(
        lambda: (
            any(b.end.get(tp, -1) >= latest for b in parse_batch_lines(stage.app.output())) or None
        ),
        f"the batch line that reads {tp} to offset {latest}",
    )
    stage.app.stop()
    read = sum(b.rows for b in parse_batch_lines(stage.app.output()))
    stage.fact("recreated_rows_read", read)
    stage.expect(
        check(
            "the new topic is read from the planned end, once",
            read == latest - planned_end,
            f"the new topic's offsets {planned_end}..{latest - 1} read once ("
            f"{latest - planned_end} rows), the {planned_end} before them skipped",
            f"{read} rows read of the new topic's {latest}",
        )
    )


def _batch_files(stage: Stage) -> set[str]:
    """The names of the query's batch files now."""
    return {path.name for path in query_output(stage).glob("batch-*.jsonl")}


def _committed_at_least(stage: Stage, tp: TopicPartition, offset: int) -> int | None:
    """`tp`'s committed end offset, once it is `offset` or more."""
    info = read_checkpoint(stage.folders.checkpoints)
    end = ((info.last_committed.end if info.last_committed else None) or {}).get(tp)
    return end if end is not None and end >= offset else None


def _committed_beyond(
    stage: Stage, batch_id: int, tp: TopicPartition, offset: int
) -> BatchOffsets | None:
    """The last committed batch, once it comes after `batch_id` and has read `tp` to `offset`
    or more (the recreated topic's offsets start again at 0: a batch before it read further)."""
    info = read_checkpoint(stage.folders.checkpoints)
    last = info.last_committed
    if last is None or last.batch_id <= batch_id or not last.end:
        return None
    end = last.end.get(tp)
    return last if end is not None and end >= offset else None


def _partitions_in_checkpoint(stage: Stage) -> list[int]:
    info = read_checkpoint(stage.folders.checkpoints)
    end = info.last_committed.end if info.last_committed else None
    return sorted(tp.partition for tp in (end or {}))


def _committed_ends(stage: Stage, topic: str) -> list[int | None]:
    info = read_checkpoint(stage.folders.checkpoints)
    end = (info.last_committed.end if info.last_committed else None) or {}
    return [end.get(TopicPartition(topic, p)) for p in range(GROWN_DOWN)]


def _first_from(stage: Stage, partition: int) -> MessageLine | None:
    """The first output line read from `partition`, if any yet."""
    topic = stage.kafka.topic
    return next(
        (
            line
            for line in stage.output.message_lines()
            if line.topic == topic and line.partition == partition
        ),
        None,
    )


def _offsets_read(stage: Stage, partition: int, held: int) -> list[int] | None:
    """The offsets of `partition` in the output, sorted, once it has at least `held` of them."""
    topic = stage.kafka.topic
    read = sorted(
        line.offset or 0
        for line in stage.output.message_lines()
        if line.topic == topic and line.partition == partition
    )
    return read if len(read) >= held else None


def _first_batch_naming(stage: Stage, tp: TopicPartition) -> BatchOffsets | None:
    """The first committed batch whose offsets/N names `tp` (read from the checkpoint: a batch
    that read no rows, as one that only found a new empty partition, prints no console line)."""
    return next(
        (b for b in committed_batches(stage.folders.checkpoints) if b.end and tp in b.end), None
    )


def _holding(stage: Stage, partition: int, messages: int) -> OffsetWindow | None:
    window = stage.kafka.window()
    parts = window.per_partition
    return window if len(parts) > partition and parts[partition][1] >= messages else None


SCENARIO = Scenario(
    name="partitions-added",
    title="partitions added while the query runs and while it is down: read from offset 0; "
    "the topic recreated smaller: PARTITIONS_DELETED",
    summary=f"A topic of one partition grows to {GROWN_LIVE} while the query runs (read at the "
    f"next batch, no restart, from offset 0) and to {GROWN_DOWN} while it is down (read "
    "from offset 0 after a restart with startingOffsets latest); every message once. "
    "Then the topic is deleted and created again with one partition: the restart fails "
    "with KAFKA_DATA_LOSS.PARTITIONS_DELETED, and with failOnDataLoss=false it goes on, "
    "skipping the new topic's first messages.",
    origin="production: changing a live job",
    about="partitions added to a topic a stateful query reads, once while it runs and once while "
    "it is down; then the topic recreated with fewer",
    run=run,
    takes_query=True,
    with_query=(
        "the topic grows from one partition to two under the running query and to three while "
        "it is down (restarted with startingOffsets latest): the checkpoint's committed "
        "offsets say when the query reads each new partition, and the oracle, over every "
        "record sent, whether it read them from their first offset; then the topic is "
        "recreated with one partition: the restart fails with "
        "KAFKA_DATA_LOSS.PARTITIONS_DELETED and no batch file is written, and with "
        "failOnDataLoss=false the batch lines' row counts say the new topic was read from the "
        "planned end, once (no oracle there: the producer's record names the old topic's "
        "records and the new one's by the same offsets)"
    ),
    takes="about 1.5 min: four Spark starts, partitions added while the query runs and while "
    "it is down, then the topic recreated smaller",
)
