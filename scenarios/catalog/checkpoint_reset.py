"""Seed 001's hard reset, quantified: delete the checkpoint and see what `startingOffsets` does.

The checkpoint folder is deleted between runs. A new query starts where `startingOffsets`
says: with `latest` the messages sent while the app was down are skipped; with `earliest`
everything Kafka still retains is processed again. In both the count restarts at 1. The
scenario predicts the skipped and doubled values from Kafka's offsets and checks them.

Usage: `python -m scenarios run checkpoint-reset --fast`
"""

from __future__ import annotations

from scenarios.catalog import steps
from scenarios.checker.expectations import (
    check,
    count_resets_at,
    duplicated_exactly,
    missing_exactly,
    outcome_of_runs,
    value_at_offset,
    within,
)
from scenarios.checker.verify import ValueRange
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step

__all__ = ["SCENARIO", "run"]


def run(stage: Stage) -> None:
    # Kafka keeps everything here, so `earliest` re-reads the whole topic and every number is
    # exact; short-retention's hard reset shows a reset under retention that deletes.
    retention = stage.timings.endless_retention_sec
    with stage.step(
        steps.start_kafka(
            happens=f"a broker and the producer; topic retention {retention:g} s, longer than the "
            "three runs together",
            why="what a reset query can re-read is bounded by retention, not by the checkpoint",
            production="know a topic's retention before resetting a query on it: it bounds what "
            "the reset can re-read",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the "
            "next one, so the first value a run writes says where it started reading.",
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
            title="First run: the Spark app from an empty checkpoint folder",
            happens="the Spark app starts on an empty checkpoint folder, with "
            "startingOffsets=earliest (the seed's choice)",
            why="startingOffsets applies only when the checkpoint folder holds no offsets",
            question="With an empty checkpoint folder, which value comes first, with which Count?",
            answer="Value 1 with Count = 1: the query starts at startingOffsets=earliest, offset 0.",
            production="startingOffsets counts only for a query's first start: changed later on "
            "the same checkpoint, it does nothing",
            giveaway=("value 1 with", "count = 1"),
            checks=("the first value written is 1, with Count = 1",),
        )
    ):
        stage.app.start()
        report = stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.expect(
            check(
                "the first value written is 1, with Count = 1",
                report.first_value == 1 and report.counts_consistent,
                "value 1 first, Count = 1 with it",
                f"value {report.first_value} first, counts "
                + ("consistent" if report.counts_consistent else "broken"),
            )
        )

    with stage.step(
        Step(
            "Second run: delete the checkpoint, start with startingOffsets=latest",
            happens="the app is stopped and its checkpoint folder deleted; a few messages are sent "
            "while it is down; then it starts a new query with startingOffsets=latest",
            watch="the app's first batch line below: where its range starts, and its count=…",
            why="latest (Spark's streaming default) means 'from now on': a reset query loses the "
            "backlog silently, with no data-loss error, because nothing it was asked to read is "
            "gone",
            production="after a reset, start from explicit offsets (JSON startingOffsets) read out "
            "of the old checkpoint with `python -m spark_app inspect`, not from latest",
            question="Which values will never appear, and what will Count show at the first value "
            "written?",
            answer="Exactly the values sent while the app was down are missing, none is doubled, "
            "and Count restarts at 1 at the first value, which sits at Kafka's latest offset at "
            "the start.",
            giveaway=("sent while the app was down are missing", "silently"),
            checks=(
                "started at Kafka's latest offset",
                "missing values",
                "duplicated values",
                "count resets",
            ),
        )
    ):
        first = _stop_and_delete(stage)
        second_start, before, after = stage.start_app_and_see_first_value(starting_offsets="latest")
        stage.expect(
            within(
                "started at Kafka's latest offset", second_start - 1, before.latest, after.latest
            )
        )
        report = stage.output.wait_for_more(3)
        skipped = stage.fact("skipped_values", ValueRange(first.last + 1, second_start - 1))
        stage.say(f"predicted: values {skipped} skipped ({len(skipped)} messages sent while down)")
        stage.expect(missing_exactly(report, [skipped] if len(skipped) > 0 else []))
        stage.expect(duplicated_exactly(report, {}))
        stage.expect(count_resets_at(report, [second_start]))

    with stage.step(
        Step(
            "Third run: delete the checkpoint again, start with startingOffsets=earliest",
            happens="the app is stopped and its checkpoint folder deleted again; a few messages "
            "pass; then it starts a new query with startingOffsets=earliest",
            watch="the app's first batch line below: where its range starts, how many rows it "
            "reads, and its count=…",
            why="a new query has no memory of what an old one processed: the checkpoint was that "
            "memory",
            production="an output keyed on a business id (not on the batch id) makes a "
            "reprocessing reset harmless; a counter in state cannot be rebuilt this way",
            question="Which values appear twice now, and do the values skipped before show up?",
            answer="Every value the two earlier runs wrote appears a second time, the skipped ones "
            "appear now (nothing missing), and Count restarts at 1 again, at Kafka's earliest "
            "offset.",
            giveaway=("a second time", "nothing missing"),
            checks=(
                "started at Kafka's earliest offset",
                "missing values",
                "duplicated values",
                "count resets",
            ),
        )
    ):
        second = _stop_and_delete(stage)
        third_start, before, after = stage.start_app_and_see_first_value(
            starting_offsets="earliest"
        )
        stage.expect(
            within(
                "started at Kafka's earliest offset",
                third_start - 1,
                before.earliest,
                after.earliest,
            )
        )
        report = stage.output.wait_for_value(second.last + 3)
        missing, duplicated = outcome_of_runs(
            [first, second, ValueRange(third_start, report.highest or third_start)]
        )
        stage.fact("reprocessed_values", sorted(duplicated))
        stage.say(
            f"predicted: {len(duplicated)} values written twice, missing "
            f"{', '.join(str(r) for r in missing) or 'none'}"
        )
        stage.expect(missing_exactly(report, missing))
        stage.expect(duplicated_exactly(report, duplicated))
        stage.expect(count_resets_at(report, [second_start, third_start]))
        stage.app.stop()


def _stop_and_delete(stage: Stage) -> ValueRange:
    """Stop the app, delete its checkpoint, let a few messages pass; the values this run wrote."""
    stage.app.stop()
    report = stage.output.verify()
    # This run began where the count last fell back to 1 (or at the top of the log).
    first = report.count_resets[-1] if report.count_resets else (report.first_value or 1)
    last = report.last_value or first
    stage.app.delete_checkpoint()
    latest = stage.kafka.window().latest
    stage.kafka.wait_for_latest(latest + 3, "three messages sent while the app is down")
    return ValueRange(first, last)


SCENARIO = Scenario(
    name="checkpoint-reset",
    title="delete the checkpoint: latest skips the backlog, earliest reprocesses what Kafka keeps",
    summary="The checkpoint folder is deleted between runs; with startingOffsets=latest the "
    "messages sent while down are skipped, with earliest the retained ones are "
    "processed again; the count restarts each time. Predicted from Kafka's offsets.",
    origin="seed 001 hard reset",
    about="what a new query reads once its checkpoint is deleted, with startingOffsets latest, "
    "then earliest",
    run=run,
)
