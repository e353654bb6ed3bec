"""Seed 001 scenario #2, short retention: the app stays down too long and cannot resume.

The Spark app is stopped; while it is down Kafka's retention deletes the segments holding the
offset its checkpoint resumes from. The restart fails with the data-loss error naming the lost
offset range (SPARK-12693's situation). Then the two ways out, each verified: restart with
`failOnDataLoss=false` (continues; exactly the aged-out range is missing, the count goes on)
and the hard reset (delete the checkpoint; the count restarts at 1).

Usage: `python -m scenarios run short-retention --fast`
"""

from __future__ import annotations

from scenarios.catalog import steps
from scenarios.checker.expectations import (
    check,
    count_resets_at,
    duplicated_exactly,
    missing_exactly,
    outcome_of_runs,
    within,
)
from scenarios.checker.verify import ValueRange
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CouldNotReadOffsetRangeError, DataLossError, error_in_text
from spark_app.lines.data_loss_lines import (
    SKIP_WARNING_GREP,
    earliest_now_in,
    lost_range_in,
    skip_warning_as_printed,
    skipped_ranges_in,
)

__all__ = ["SCENARIO", "run"]

DATA_LOSS = DataLossError.token
CONDITION = CouldNotReadOffsetRangeError.token


def run(stage: Stage) -> None:
    t = stage.timings
    with stage.step(
        steps.start_kafka(
            happens=f"a broker and the producer, one message per interval; the topic's segments "
            f"roll every {t.segment_sec:g} s. Retention is {t.endless_retention_sec:g} s for now: "
            "the scenario shortens it once the app is down",
            why="Kafka deletes whole segments whose newest record is older than retention.ms, "
            "checked every log.retention.check.interval.ms. The seed keeps 15 s throughout; a "
            "running app stays ahead of it, but a busy machine's first batches may not, so the "
            "scenario shortens retention only while the app is down: the outcome is the same",
            production="retention is a promise about how long a consumer may be down; make it "
            "longer than your longest outage and alert on consumer lag",
            question="Each producer line shows earliest:latest. While the app runs, with "
            "retention long, will earliest move from 0?",
            answer="No: nothing in the topic is older than retention, so nothing is deleted and "
            "earliest stays 0 while the app runs (checked when it stops); only latest moves, one "
            "per message.",
            giveaway=("stays 0", "nothing is deleted"),
            checks=("Kafka's earliest offset stays 0 while retention is long",),
        )
    ) as kafka_step:
        stage.kafka.start()

    with stage.step(
        steps.first_start(
            title="Start the Spark app, let it run, then stop it",
            happens="a new query from the earliest offset; each batch's offsets go to the "
            "checkpoint; once it has written a few values it is stopped with SIGTERM",
            why="the checkpoint is the only place the query's position lives: a restart resumes "
            "from the end of the last committed batch",
            production="keep the checkpoint on durable storage: it is the only record of where "
            "the query is, and `python -m spark_app inspect` reads it",
            question="Once it has written values 1..n and stopped, which offset will its "
            "checkpoint resume from?",
            answer="Offset n: values 1..n sit at offsets 0..n-1, so the next one to read is n.",
            giveaway=("offset n:", "offsets 0..n-1"),
            checks=("checkpoint resumes after the last value written",),
        )
    ):
        stage.app.start()
        stage.output.wait_for_value(t.run_for_messages)
        stage.app.stop()
        before = stage.output.verify()
        processed = stage.fact("processed_before_outage", before.highest or 0)
        resume_at = stage.fact("checkpoint_resume_offset", stage.app.committed_offset())
        stage.expect(
            check(
                "checkpoint resumes after the last value written",
                resume_at == processed,
                f"offset {processed} (values 1..{processed} at offsets 0..{processed - 1})",
                f"offset {resume_at}",
            )
        )
        deleted = stage.timeline.retention_deletions()
        earliest = stage.kafka.window().earliest
        stage.expect(
            check(
                "Kafka's earliest offset stays 0 while retention is long",
                earliest == 0 and not deleted,
                "earliest 0 at every sample until the app stopped",
                f"earliest {earliest} at the stop"
                + (f", moved {len(deleted)} time(s)" if deleted else ", never moved"),
            ),
            step=kafka_step,
        )

    with stage.step(
        Step(
            "Shorten retention and stay down longer than retention + check interval",
            happens=f"retention becomes {t.retention_sec:g} s; the broker checks it every "
            f"{t.retention_check_sec:g} s after an initial delay of "
            f"{t.retention_initial_delay_sec:g} s; the app stays down while the producer goes on",
            watch="the producer's lines below: their earliest:latest numbers, against the offset "
            "the checkpoint resumes from",
            why="retention does not know about consumers: it deletes whole segments by age, "
            "whether anybody read them or not",
            production="`python -m spark_app inspect` tells before a restart whether the offsets "
            "still exist",
            question="The app has not read offset n yet. Will Kafka keep it until the app comes "
            "back?",
            answer="No: once its segment is older than retention, the next check deletes it, "
            "read or not; Kafka's earliest offset passes n while the app is down.",
            giveaway=("read or not", "does not know about consumers", "earliest offset passes"),
            checks=("Kafka deleted the offset the checkpoint resumes from",),
        )
    ):
        stage.kafka.set_retention(t.retention_sec)
        aged = stage.kafka.wait_until_aged_out(processed)
        stage.say(
            f"retention deleted offsets below {aged.earliest}; the checkpoint resumes at {processed}"
        )
        stage.expect(
            check(
                "Kafka deleted the offset the checkpoint resumes from",
                aged.earliest > processed,
                f"earliest past {processed}",
                f"earliest {aged.earliest}",
            )
        )

    _failing_restart(stage, processed, aged.earliest)
    _stop_the_bleeding(stage, aged.earliest)
    continued = _fail_on_data_loss_false(stage, processed)
    _hard_reset(stage, ValueRange(1, processed), continued)


def _stop_the_bleeding(stage: Stage, earliest_before: int) -> None:
    with stage.step(
        Step(
            "Raise retention again before trying a way out",
            happens=f"retention back to {stage.timings.endless_retention_sec:g} s (what "
            "kafka-configs --alter does); the scenario follows Kafka's earliest offset over two "
            "retention checks",
            watch="the producer's lines below: their earliest number",
            why="an app resuming at the earliest offset races retention for the oldest segment; "
            "with retention raised the loss is exactly what is already gone",
            production="first stop further loss (raise retention with kafka-configs --alter), "
            "then choose the way out",
            question="With retention raised, will Kafka's earliest offset go back, stay, or keep "
            "moving?",
            answer="It stays where it is: deleted segments do not come back, and nothing more is "
            "deleted (a deletion already under way may move it once more).",
            giveaway=("stays where it is", "do not come back"),
            checks=("the deleted offsets do not come back",),
        )
    ):
        stage.kafka.set_retention(stage.timings.endless_retention_sec)
        settled = stage.kafka.wait_until_earliest_settles()
        stage.fact("earliest_after_raising_retention", settled.earliest)
        stage.say(f"Kafka's earliest offset settled at {settled.earliest}")
        stage.expect(
            check(
                "the deleted offsets do not come back",
                settled.earliest >= earliest_before,
                f"earliest settles at {earliest_before} or later",
                f"earliest settled at {settled.earliest}",
            )
        )


def _failing_restart(stage: Stage, resume_at: int, earliest_before: int) -> None:
    with stage.step(
        Step(
            "Restart the Spark app on the same checkpoint",
            happens="the app starts again on its checkpoint, with failOnDataLoss=true (the "
            "default); its next batch runs from the checkpoint's offset to Kafka's latest",
            watch="the app's lines below: a batch line if it reads on, its one-line error if it "
            "stops",
            why="with failOnDataLoss=true (the default) Spark's Kafka source refuses to skip data "
            "silently. The planning on the driver does not look at Kafka's earliest offset; the "
            "executor's read does, so the batch stays planned and every restart replays it and "
            "fails the same way. startingOffsets does not help: a resumed query reads its "
            "checkpoint",
            production="decide in advance which way out you take: skip (failOnDataLoss=false) or "
            "reset",
            question="Will the restart on the same checkpoint fail, and with which error?",
            answer=f"Yes: it exits non-zero with {CONDITION}, naming the topic partition and a "
            "range that starts at the checkpoint's offset; the lost offsets end at Kafka's "
            "earliest. The batch was planned (offsets/N, no commits/N) before the read failed, "
            "and nothing new is written.",
            giveaway=(CONDITION, "exits non-zero"),
            checks=(
                "the restart fails",
                "the error is Spark's data-loss condition for a read",
                "the error names the topic partition",
                "the error's range starts at the checkpoint's offset",
                "the lost offsets end at Kafka's earliest offset",
                "Spark planned the batch before the read failed",
                "nothing new was written",
            ),
        )
    ):
        stage.app.start()
        code = stage.app.wait_exit(kind="crash")
        output = stage.app.output()
        stage.expect(
            check("the restart fails", code != 0, "a non-zero exit code", f"exit code {code}")
        )
        # The app's one line, read back as its error class (the same parser the CLI uses).
        named_error = error_in_text(output)
        stage.expect(
            check(
                "the error is Spark's data-loss condition for a read",
                isinstance(named_error, CouldNotReadOffsetRangeError),
                CONDITION,
                named_error.token if named_error else "no error line",
            )
        )
        topic = stage.kafka.topic
        stage.expect(
            check(
                "the error names the topic partition",
                f"{topic}-0" in output,
                f"{topic}-0",
                "present" if f"{topic}-0" in output else "absent",
            )
        )
        error = output[output.find(DATA_LOSS) :] if DATA_LOSS in output else output
        start, end = lost_range_in(error) or (-1, -1)
        stage.fact("error_range", [start, end])
        stage.expect(
            check(
                "the error's range starts at the checkpoint's offset",
                start == resume_at,
                f"[{resume_at}, …)",
                f"[{start}, {end})",
            )
        )
        planned = _planned_batch(stage)
        stage.fact("planned_batch", planned)
        stage.expect(
            check(
                "Spark planned the batch before the read failed",
                planned is not None and planned[1] == end,
                f"offsets/N written and not committed, ending at {end}",
                f"batch {planned[0]} ends at {planned[1]}" if planned else "no pending batch",
            )
        )
        # Spark's range is the planned batch; what is lost of it ends at Kafka's earliest offset,
        # which the playground adds after Spark's words.
        named = earliest_now_in(error)
        lost_end = stage.fact("lost_until_offset", named if named is not None else end)
        stage.expect(
            within(
                "the lost offsets end at Kafka's earliest offset",
                lost_end,
                earliest_before,
                stage.kafka.window().earliest,
            )
        )
        after = stage.output.verify()
        stage.expect(
            check(
                "nothing new was written",
                after.highest == resume_at,
                f"highest value still {resume_at}",
                f"highest {after.highest}",
            )
        )


def _planned_batch(stage: Stage) -> tuple[int, int] | None:
    """(id, end offset summed over partitions) of the batch planned but not committed."""
    info = read_checkpoint(stage.app.checkpoint_view())
    if info.pending is None or not info.pending.end:
        return None
    return info.pending.batch_id, info.pending.end_total


def _fail_on_data_loss_false(stage: Stage, processed: int) -> ValueRange:
    source, spark_log = stage.settings.source, stage.app.spark_log_path
    with stage.step(
        Step(
            "Way out 1: restart with failOnDataLoss=false",
            happens="the app starts again on the same checkpoint, with failOnDataLoss=false; the "
            "batch planned at the failed restart runs first",
            watch="the app's first batch lines below: where their ranges start, and their count",
            why="failOnDataLoss=false lets the reading task move forward to what exists, with a "
            "warning naming the skipped range (KafkaDataConsumer's, word for word): "
            f"{skip_warning_as_printed(source)}. One task per batch may skip; together the "
            "ranges run from the checkpoint's offset to Kafka's earliest "
            f"(`{SKIP_WARNING_GREP} {spark_log}` lists them)",
            production="acceptable when the data can be rebuilt or is not critical; record what "
            "was skipped (the range is in the warning) and backfill it",
            question="Which values will be missing now, and will Count go on or restart at 1?",
            answer="Exactly the aged-out values (from the one after the last written to Kafka's "
            "earliest offset, where it resumed), which spark.log's skip warnings cover exactly; "
            "Count goes on from the state without a break or a duplicate.",
            giveaway=("exactly the aged-out", "count goes on"),
            checks=(
                "resumed at Kafka's earliest offset",
                "missing values",
                "spark.log's skip warnings cover exactly the lost offsets",
                "the count goes on",
            ),
        )
    ):
        resumed, before, after = stage.start_app_and_see_first_value(fail_on_data_loss=False)
        earliest, noticed = before.earliest, after.earliest
        stage.fact("resumed_at_value", resumed)
        report = stage.output.wait_for_more(3)
        stage.expect(within("resumed at Kafka's earliest offset", resumed - 1, earliest, noticed))
        lost = stage.fact("lost_values", ValueRange(processed + 1, resumed - 1))
        stage.say(f"predicted missing: values {lost} (offsets {processed}..{resumed - 2})")
        stage.expect(missing_exactly(report, [lost]))
        # One warning per task that skipped: the replayed batch may end before Kafka's earliest
        # offset (it was planned at the failed restart), and the next batch skips the rest.
        skipped = skipped_ranges_in(stage.app.spark_log())
        stage.fact("skipped_ranges_warned", skipped)
        covered = _joined(skipped)
        stage.expect(
            check(
                "spark.log's skip warnings cover exactly the lost offsets",
                covered == (processed, resumed - 1),
                f"skip warnings joining up to [{processed}, {resumed - 1})",
                _warned(skipped, covered),
            )
        )
        stage.expect(
            check(
                "the count goes on",
                report.counts_consistent and not report.duplicated,
                "Count runs on without a break, no duplicates",
                f"{len(report.count_breaks)} break(s), {len(report.duplicated)} duplicate(s)"
                + "".join(f"; {b}" for b in report.count_breaks[:3])
                + "".join(f"; line {u.line}: {u.problem}" for u in report.unpaired[:3]),
            )
        )
        stage.app.stop()
        return ValueRange(resumed, stage.output.verify().highest or resumed)


def _warned(skipped: list[tuple[int, int]], covered: tuple[int, int] | None) -> str:
    """What the warnings said: one range and how many warnings made it up (one or two tasks
    skip, depending on where the replayed batch ends: timing, not behaviour), or the list."""
    if covered is not None:
        return f"[{covered[0]}, {covered[1]}) in {len(skipped)} warning(s)"
    return f"{skipped or 'no such warning'}"


def _joined(ranges: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The single range that consecutive ranges make up, or None if they leave a gap."""
    if not ranges:
        return None
    start, end = ranges[0]
    for a, b in ranges[1:]:
        if a != end:
            return None
        end = b
    return start, end


def _hard_reset(stage: Stage, first: ValueRange, continued: ValueRange) -> None:
    with stage.step(
        Step(
            "Way out 2: the hard reset — delete the checkpoint and start again",
            happens="the checkpoint folder is deleted and the app starts a new query: no offsets, "
            "no state, startingOffsets as on a first start",
            watch="the app's first batch lines below: where their range starts, and their count",
            why="the state lives in the checkpoint: deleting it loses the count along with the "
            "offsets",
            production="never keep in checkpointed state what you cannot rebuild from a source",
            question="Where will the new query start, and what will Count show there?",
            answer="At Kafka's earliest offset, with Count = 1 there and no other break; the values "
            "Kafka still holds that were written before appear a second time, and the aged-out "
            "ones stay missing.",
            giveaway=("count = 1", "a second time"),
            checks=(
                "restarted at Kafka's earliest offset",
                "missing values",
                "duplicated values",
                "count resets",
            ),
        )
    ):
        stage.app.delete_checkpoint()
        restarted, before, after = stage.start_app_and_see_first_value()
        earliest, noticed = before.earliest, after.earliest
        stage.fact("reset_restarted_at_value", restarted)
        report = stage.output.wait_for_value(max(continued.last, restarted) + 3)
        stage.expect(
            within("restarted at Kafka's earliest offset", restarted - 1, earliest, noticed)
        )
        missing, duplicated = outcome_of_runs(
            [first, continued, ValueRange(restarted, report.highest or restarted)]
        )
        stage.expect(missing_exactly(report, missing))
        stage.expect(duplicated_exactly(report, duplicated))
        stage.expect(count_resets_at(report, [restarted]))
        stage.app.stop()


SCENARIO = Scenario(
    name="short-retention",
    title="down longer than retention: the restart fails on data loss; two ways out",
    summary="Kafka deletes the segments holding the app's checkpointed offset while it is down; "
    "the restart fails naming the lost range; failOnDataLoss=false skips exactly that "
    "range; the hard reset starts over with the count at 1.",
    origin="seed 001 scenario #2, SPARK-12693",
    about="a Spark app that stays down longer than its topic's retention",
    run=run,
    # It reads the checkpoint through stage.app.checkpoint_view(), a copy of a store's.
    checkpoint_stores=("local", "hdfs", "s3"),
)
