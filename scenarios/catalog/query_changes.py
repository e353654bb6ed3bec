"""Query changes: one checkpoint, restarted with one change at a time; what Spark does with each.

What production asks of a checkpoint before a deploy: which of the query's settings can I
change on it? Each restart below changes one thing on the same checkpoint, and each is
predicted before it is observed:

1. `spark.sql.shuffle.partitions` 1 -> 4: continues, and silently keeps 1. The value is pinned
   in every `offsets/N` (its metadata line) and in the state's layout (`state/0/0` only).
2. `maxOffsetsPerTrigger` (none -> 2): continues; the next batches read at most 2 rows each.
3. a second topic added to `subscribe`: continues; the new topic is read from its earliest
   offset (none of it is skipped), and its messages join the count.
4. `subscribe` -> `subscribePattern` matching the same two topics: continues from the
   checkpoint's offsets; nothing read twice.

A change to the grouping key or the state is the upgrade scenario's (refused with
STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE). Every Experience value is checked exactly once at the
end; the second topic's messages are counted apart (their values are not whole numbers).

Usage: `python -m scenarios run query-changes --fast`
"""

from __future__ import annotations

from scenarios.catalog import steps
from scenarios.checker.expectations import check, equals, exactly_once, value_at_offset
from scenarios.checker.verify import VerifyReport
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage, TopicRecord
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.batch_line import BatchLine, parse_batch_lines

__all__ = ["SCENARIO", "CAP", "NEW_SHUFFLE_PARTITIONS", "SHUFFLE_KEY", "run"]

SHUFFLE_KEY = "spark.sql.shuffle.partitions"
NEW_SHUFFLE_PARTITIONS = 4
CAP = 2  # maxOffsetsPerTrigger: below the backlog a Spark start leaves at the producer's pace
_SECOND_TOPIC_MESSAGES = 5


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer; topic retention one hour, longer than the whole "
            "run",
            why="every restart below resumes from the offsets its checkpoint holds: they must "
            "still be in Kafka",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the "
            "next one; every restart below resumes at an offset its checkpoint names.",
            giveaway=("offset v-1",),
            checks=("value v sits at offset v-1",),
        )
    ):
        stage.kafka.start()
        # Three messages at least, so that the check reads more than the first one.
        stage.kafka.wait_for_latest(3, "three messages in the topic")
        stage.expect(value_at_offset(stage.kafka.values_in_topic()))

    with stage.step(
        steps.first_start(
            title="Run the app once on a new checkpoint",
            happens="python -m spark_app with its defaults (shuffle partitions 1, no cap, "
            "subscribe to one topic) on a new checkpoint, stopped after a few values: the "
            "checkpoint every later run reuses",
            why="the first start of a checkpoint records the query's settings with its first "
            "offsets",
            question="Which of the query's settings does the new checkpoint record?",
            answer="The SQL settings that shape its state, spark.sql.shuffle.partitions among "
            "them (1 here), in every offsets/N's metadata line, beside the offsets.",
            production="read offsets/N's metadata line before a deploy: it is what a restart keeps",
            giveaway=("shape its state", "metadata line"),
            checks=("the checkpoint records the shuffle partitions",),
        )
    ):
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.app.stop()
        pinned = read_checkpoint(stage.folders.checkpoints).conf.get(SHUFFLE_KEY)
        stage.expect(
            equals(
                "the checkpoint records the shuffle partitions",
                pinned,
                "1",
                lambda n: f"{SHUFFLE_KEY}={n} in offsets/N",
            )
        )

    with stage.step(
        Step(
            f"Restart with --shuffle-partitions {NEW_SHUFFLE_PARTITIONS}",
            happens=f"the session is built with {SHUFFLE_KEY}={NEW_SHUFFLE_PARTITIONS}; the "
            "checkpoint says 1",
            watch="the app's batch lines below: whether it runs on, and where its ranges start",
            why="the state is split by the shuffle partitions: a key's state lives in the "
            "partition its hash picks, so another number would look for it in the wrong store; "
            "Spark takes the checkpoint's value over the session's, without a word on the console",
            production="to change the shuffle partitions of a stateful query, start a new "
            "checkpoint (and rebuild or migrate the state); on the old one the new value is "
            "ignored",
            question=f"Restarted with {SHUFFLE_KEY}={NEW_SHUFFLE_PARTITIONS}: does Spark "
            "continue, refuse, or continue and do something else?",
            answer="It continues and silently does something else: the batches after the restart "
            f"are recorded with {SHUFFLE_KEY}=1 and the state keeps one partition; every value "
            "once so far.",
            giveaway=("silently", "keeps one partition"),
            checks=(
                "the batches after the restart keep the checkpoint's value",
                "the state keeps one partition",
                "exactly once",
            ),
        )
    ):
        uncapped = _shuffle_partitions(stage)

    with stage.step(
        Step(
            f"Restart with --max-offsets-per-trigger {CAP}",
            happens=f"python -m spark_app --max-offsets-per-trigger {CAP} on the same checkpoint, "
            "with the backlog sent while it restarts; uncapped, the last restart's largest batch "
            f"read {uncapped.rows} rows",
            watch="the app's batch lines below: the rows=… of each batch after the restart",
            why="a rate limit is read by the source when it plans each batch: the checkpoint "
            "holds offsets, not the limit, so a new one counts from the next batch planned; a "
            "batch the last run planned but did not commit (in offsets/N) is replayed exactly, "
            "with the size it recorded, to keep exactly-once",
            production="set maxOffsetsPerTrigger before a known backlog (a long outage, a replay) "
            "and lift it afterwards: both are plain restarts",
            question=f"Restarted with maxOffsetsPerTrigger={CAP}: does the cap apply at once, and "
            "does the count go on?",
            answer=f"From the next batch planned: every batch planned after the restart reads at "
            f"most {CAP} rows, and the backlog takes several of them; the count goes on, every "
            "value once.",
            giveaway=("from the next batch planned", f"at most {CAP} rows"),
            checks=(
                "every batch planned after the restart reads at most the cap",
                "the backlog took several capped batches",
                "exactly once",
            ),
        )
    ):
        _max_offsets(stage, uncapped)

    topic = stage.kafka.topic
    second = f"{topic}-more"
    topics = f"{topic},{second}"
    with stage.step(
        Step(
            f"Restart subscribed to a second topic: --topic {topics}",
            happens=f"topic {second} is created with {_SECOND_TOPIC_MESSAGES} messages (values "
            "more-1…, not whole numbers); then the app restarts subscribed to both topics",
            watch=f"the app's batch lines below: a range of {second}-0 beside {topic}-0's, where "
            "it starts, and the rows=…",
            why="the checkpoint holds offsets per topic-partition; a partition it has never seen "
            "gets a start of its own, and the source starts new partitions at their earliest "
            "offset, whatever startingOffsets says (that option counts for a new query only)",
            production="adding a topic is a restart, and the new topic is read from its "
            "beginning: if it holds years of data, that is the first batch (cap it with "
            "maxOffsetsPerTrigger)",
            question=f"Restarted with a second topic in subscribe, does Spark continue, refuse, "
            f"or skip what {second} already holds?",
            answer=f"It continues and reads {second} from its earliest offset: all "
            f"{_SECOND_TOPIC_MESSAGES} of its messages once, the count takes them in, every "
            f"{topic} value once.",
            giveaway=("from its earliest offset", "of its messages once"),
            checks=(
                "second-topic messages read once each",
                "every value once, the count takes both topics in",
            ),
        )
    ):
        _second_topic(stage, second, topics)

    pattern = f"{topic}(-more)?"
    with stage.step(
        Step(
            f"Restart with subscribePattern {pattern} instead of subscribe {topics}",
            happens="the same two topics, named by a pattern: the source's kind of subscription "
            "changes, the topic-partitions do not; then the producer stops and the app catches "
            "up",
            watch="the app's batch lines below: where each partition's range starts after the "
            "restart",
            why="the checkpoint's offsets name topic-partitions, not how they were subscribed: a "
            "pattern that finds the same partitions resumes from the same offsets",
            production="switching to a pattern is a restart; check what the pattern matches today "
            "(a topic created later that matches it joins, from its earliest offset)",
            question="Restarted with subscribePattern over the same two topics: does Spark "
            "continue, refuse, or read the second topic again?",
            answer="It continues from the checkpoint's offsets: no second-topic message read "
            "again, every value once, the count taking both topics in.",
            giveaway=("continues from the checkpoint's offsets", "read again"),
            checks=(
                "second-topic messages read once each",
                "every value once, the count takes both topics in",
            ),
        )
    ):
        _pattern(stage, pattern)


def _shuffle_partitions(stage: Stage) -> BatchLine:
    """Restart asking for more shuffle partitions; the largest (uncapped) batch it ran."""
    before = read_checkpoint(stage.folders.checkpoints).last_committed_id
    stage.app.start(shuffle_partitions=NEW_SHUFFLE_PARTITIONS)
    stage.output.wait_for_more(3)
    stage.app.stop()
    info = read_checkpoint(stage.folders.checkpoints)
    kept = info.conf.get(SHUFFLE_KEY)
    stage.fact("shuffle_partitions_asked", NEW_SHUFFLE_PARTITIONS)
    stage.fact("shuffle_partitions_kept", kept)
    stage.say(
        f"asked for {SHUFFLE_KEY}={NEW_SHUFFLE_PARTITIONS}; offsets/{info.last_committed_id} "
        f"(written by this run) says {SHUFFLE_KEY}={kept}"
    )
    stage.expect(
        check(
            "the batches after the restart keep the checkpoint's value",
            kept == "1" and (info.last_committed_id or 0) > (before or 0),
            f"{SHUFFLE_KEY}=1 in offsets/N for N > {before}",
            f"{SHUFFLE_KEY}={kept} in offsets/{info.last_committed_id}",
        )
    )
    stores = sorted(
        p.name for p in (stage.folders.checkpoints / "state" / "0").iterdir() if p.name.isdigit()
    )
    stage.expect(
        check(
            "the state keeps one partition",
            stores == ["0"],
            "state/0/0 only",
            ", ".join(f"state/0/{s}" for s in stores) or "no state",
        )
    )
    done = stage.output.verify()
    stage.expect(exactly_once(done, done.highest or 0))
    # The first batch after a start takes in the backlog sent while Spark started (uncapped).
    return max(parse_batch_lines(stage.app.output()), key=lambda b: b.rows)


def _max_offsets(stage: Stage, uncapped: BatchLine) -> None:
    # A batch the last run planned (offsets/N) but did not commit is replayed with the offsets
    # it recorded, whatever the cap: only batches planned from now on are capped.
    replayed = read_checkpoint(stage.folders.checkpoints).pending_id
    stage.app.start(max_offsets_per_trigger=CAP)
    stage.output.wait_for_value(stage.kafka.window().latest + 1)
    stage.app.stop()
    report = stage.output.verify()
    ran = [b for b in parse_batch_lines(stage.app.output()) if b.rows]
    batches = [b for b in ran if b.batch_id != replayed]
    largest = max((b.rows for b in batches), default=0)
    full = sum(1 for b in batches if b.rows == CAP)
    stage.fact("uncapped_largest_batch", uncapped.rows)
    stage.fact("capped_largest_batch", largest)
    stage.fact("replayed_batch", replayed)
    replay = next((b for b in ran if b.batch_id == replayed), None)
    stage.fact("replayed_batch_rows", replay.rows if replay else None)
    stage.say(
        f"batch sizes of this run: {[(b.batch_id, b.rows) for b in ran][:12]}; "
        + (
            f"batch {replayed} was planned by the last run and replayed as recorded "
            f"({replay.rows if replay else 0} rows); "
            if replayed is not None
            else ""
        )
        + f"the uncapped restart's largest was {uncapped.rows}"
    )
    stage.expect(
        check(
            "every batch planned after the restart reads at most the cap",
            0 < largest <= CAP < uncapped.rows,
            f"at most {CAP} rows a batch (uncapped: more than {CAP})",
            f"largest {largest} (uncapped: {uncapped.rows})",
        )
    )
    stage.expect(
        check(
            "the backlog took several capped batches",
            full >= 2,
            f"at least 2 batches of {CAP} rows",
            f"{full}",
        )
    )
    stage.expect(exactly_once(report, report.highest or 0))


def _second_topic(stage: Stage, second: str, topics: str) -> None:
    stage.kafka.add_topic(
        second, [TopicRecord(f"more-{n}") for n in range(1, _SECOND_TOPIC_MESSAGES + 1)]
    )
    stage.app.start(topic=topics)
    stage.output.wait_for_value(stage.kafka.window().latest + 2)
    _wait_for_foreign(stage, _SECOND_TOPIC_MESSAGES)
    stage.app.stop()
    report = stage.output.verify()
    stage.fact("second_topic_messages_read", report.foreign_messages)
    _expect_counted(stage, report, _SECOND_TOPIC_MESSAGES)


def _pattern(stage: Stage, pattern: str) -> None:
    stage.app.start(subscribe_pattern=pattern)
    stage.output.wait_for_value(stage.kafka.window().latest + 2)
    total = stage.stop_producer_and_drain()
    stage.app.stop()
    report = stage.output.verify()
    stage.fact("second_topic_messages_after_pattern", report.foreign_messages)
    _expect_counted(stage, report, _SECOND_TOPIC_MESSAGES, total)


def _wait_for_foreign(stage: Stage, messages: int) -> VerifyReport:
    def read() -> VerifyReport | None:
        report = stage.output.verify()
        return report if report.foreign_messages >= messages else None

    return stage.app.wait_while_up(read, f"{messages} second-topic messages in the output")


def _expect_counted(
    stage: Stage, report: VerifyReport, foreign: int, total: int | None = None
) -> None:
    """Every counter value once (up to `total`, when the producer has stopped), the second
    topic's messages `foreign` times in all, and the count taking both in."""
    highest = total if total is not None else report.highest or 0
    stage.expect(equals("second-topic messages read once each", report.foreign_messages, foreign))
    stage.expect(
        check(
            "every value once, the count takes both topics in",
            report.ok and report.highest == highest and report.final_count == highest + foreign,
            f"1..{highest} each once, final count {highest} + {foreign}",
            f"highest {report.highest}, final count {report.final_count}, missing "
            f"{len(report.missing)} range(s), duplicated {len(report.duplicated)}, "
            f"count breaks {len(report.count_breaks)}",
        )
    )


SCENARIO = Scenario(
    name="query-changes",
    title="one checkpoint, one change at a time: shuffle partitions ignored, a cap, a topic "
    "added, a pattern",
    summary="Restarted on the same checkpoint: a new spark.sql.shuffle.partitions is silently "
    "ignored (offsets/N keeps 1), maxOffsetsPerTrigger caps the next batches, a second "
    "topic is read from its earliest offset, subscribePattern over the same topics "
    "resumes from the same offsets; exactly once throughout.",
    origin="production: changing a live job",
    about="one checkpoint restarted with one change of the query at a time: which ones it "
    "takes, and how",
    run=run,
    takes="about 1.5 min: five Spark starts on one checkpoint, one change each, each waited for"
    " to its output",
)
