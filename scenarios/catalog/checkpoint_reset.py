"""Seed 001's hard reset, quantified: delete the checkpoint and see what `startingOffsets` does.

The checkpoint folder is deleted between runs. A new query starts where `startingOffsets`
says: with `latest` the messages sent while the app was down are skipped; with `earliest`
everything Kafka still retains is processed again. In both the count restarts at 1. The
scenario predicts the skipped and doubled values from Kafka's offsets and checks them.

Usage: `python -m scenarios run checkpoint-reset --fast`
"""

from __future__ import annotations

from scenarios.checker.expectations import (
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

__all__ = ["SCENARIO", "run"]


def run(stage: Stage) -> None:
    # Kafka keeps everything here, so `earliest` re-reads the whole topic and every number is
    # exact; short-retention's hard reset shows a reset under retention that deletes.
    retention = stage.timings.endless_retention_sec
    stage.step(
        Step(
            "Start Kafka and the producer",
            happens=f"topic retention {retention:g} s: Kafka still holds everything the earlier runs "
            "processed when the next one starts",
            watch="the producer's earliest offset stays 0",
            why="what a reset query can re-read is bounded by retention, not by the checkpoint",
            question="By the third run, will Kafka still hold offset 0?",
            answer="Yes: retention is an hour, so earliest stays 0 and a reset to earliest re-reads the "
            "whole topic.",
            production="know a topic's retention before resetting a query on it: it bounds what the "
            "reset can re-read",
        )
    )
    stage.kafka.start()
    stage.step(
        Step(
            "First run: the Spark app from an empty checkpoint folder",
            happens="a new query starting at the earliest offset",
            watch="Count = n runs 1, 2, 3…",
            why="startingOffsets applies only when the checkpoint folder holds no offsets",
            question="With an empty checkpoint folder, which value comes first, with which Count?",
            answer="Value 1 with Count = 1: the query starts at startingOffsets=earliest, offset 0.",
            production="startingOffsets counts only for a query's first start: changed later on the "
            "same checkpoint, it does nothing",
        )
    )
    stage.app.start()
    stage.output.wait_for_value(stage.timings.run_for_messages)
    first = _stop_and_delete(stage)

    stage.step(
        Step(
            "Second run: delete the checkpoint, start with startingOffsets=latest",
            happens="the new query starts at Kafka's latest offset at the moment it starts",
            watch="the values sent while the app was down never appear; Count restarts at 1",
            why="latest (Spark's streaming default) means 'from now on': a reset query loses the "
            "backlog silently, with no data-loss error, because nothing it was asked to read is gone",
            production="after a reset, start from explicit offsets (JSON startingOffsets) read out of "
            "the old checkpoint with `python -m spark_app inspect`, not from latest",
            question="Which values will never appear, and what will Count show at the first value "
            "written?",
            answer="Exactly the values sent while the app was down are missing, none is doubled, and "
            "Count = 1 at the first value, which sits at Kafka's latest offset at the start (all "
            "checked).",
        )
    )
    second_start, before, after = stage.start_app_and_see_first_value(starting_offsets="latest")
    stage.expect(
        within("started at Kafka's latest offset", second_start - 1, before.latest, after.latest)
    )
    report = stage.output.wait_for_more(3)
    skipped = stage.fact("skipped_values", ValueRange(first.last + 1, second_start - 1))
    stage.say(f"predicted: values {skipped} skipped ({len(skipped)} messages sent while down)")
    stage.expect(missing_exactly(report, [skipped] if len(skipped) > 0 else []))
    stage.expect(duplicated_exactly(report, {}))
    stage.expect(count_resets_at(report, [second_start]))
    second = _stop_and_delete(stage)

    stage.step(
        Step(
            "Third run: delete the checkpoint again, start with startingOffsets=earliest",
            happens="the new query starts at Kafka's earliest offset and re-reads all it retains",
            watch="values the earlier runs wrote appear a second time; values skipped before now appear",
            why="a new query has no memory of what an old one processed: the checkpoint was that memory",
            production="an output keyed on a business id (not on the batch id) makes a reprocessing "
            "reset harmless; a counter in state cannot be rebuilt this way",
            question="Which values appear twice now, and do the values skipped before show up?",
            answer="Every value the two earlier runs wrote appears a second time, the skipped ones "
            "appear now (nothing missing), and Count restarts at 1 again (checked).",
        )
    )
    third_start, before, after = stage.start_app_and_see_first_value(starting_offsets="earliest")
    stage.expect(
        within(
            "started at Kafka's earliest offset", third_start - 1, before.earliest, after.earliest
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
    run=run,
)
