"""Upgrade: restart a checkpoint with changed code; what Spark lets through, what it refuses.

Seed 000 met the problem with DStreams: a checkpoint holds the old code, so an upgrade either
silently runs the old version or fails to start. Structured Streaming keeps data (offsets,
state) rather than code in its checkpoint, and says which changes a restart may carry:

1. the app (v1) runs on checkpoint A, and is stopped;
2. the new version changes only the code inside foreachBatch (`--output-format v2`: each
   message line also names its partition and offset): restarted on A it continues where v1
   stopped, the count goes on, nothing is lost or doubled;
3. the next version adds a field to the count's state (`--state-schema v2`): restarted on A,
   Spark refuses it with its own error, STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE, and the app
   says what to do;
4. seed 000's way out, blue/green: the old version (blue) runs on A again; the new version
   (green) starts beside it on a new checkpoint B from `latest`, with its own output file;
   once green has output and blue has caught up with green's start, blue is stopped. The
   messages both wrote are duplicates (expected, counted); the union of both outputs misses
   nothing; green's count starts over because its state is new.

Usage: `python -m scenarios run upgrade --fast`
"""

from __future__ import annotations

from pathlib import Path

from scenarios.catalog import steps
from scenarios.checker.expectations import (
    check,
    count_resets_at,
    counted_once,
    duplicated_exactly,
    exactly_once,
    missing_exactly,
    value_at_offset,
    within,
)
from scenarios.checker.verify import ValueRange, VerifyReport, verify
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_schema import REFUSAL_CLASSES, stored_state_fields
from spark_app.errors import StateSchemaChangedError

__all__ = ["SCENARIO", "REFUSAL_TOKEN", "SPARK_ERROR_CLASS", "overlap", "run"]

REFUSAL_TOKEN = StateSchemaChangedError.token
SPARK_ERROR_CLASS = REFUSAL_CLASSES[0]  # STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE


def overlap(blue: VerifyReport, green: VerifyReport) -> ValueRange | None:
    """The values both apps wrote: from green's first to blue's last (None if they never met)."""
    if green.lowest is None or blue.highest is None or green.lowest > blue.highest:
        return None
    return ValueRange(green.lowest, blue.highest)


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer; topic retention one hour, longer than the whole "
            "run",
            why="messages sent while the app is down wait in Kafka for the next version",
            production="plan a deploy's downtime against retention: the backlog must still be "
            "there when the new version starts",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the next "
            "one, whichever version is running, or none.",
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
            title="Run version 1 on checkpoint A",
            happens="python -m spark_app (output format v1, state schema v1), checkpoints in A; "
            "after a few values it is stopped",
            why="the checkpoint records offsets, state and the state's schema, not the code",
            question="What will checkpoint A hold of version 1: its code, or its data?",
            answer="Its data, not its code: offsets, commits and the state, with the state's "
            "schema (one field, count) stored beside it; the run writes every value once.",
            production="version the job's code and its checkpoint together: the deploy record "
            "should say which checkpoint each release ran on",
            giveaway=("its data, not", "stored beside it"),
            checks=("checkpoint A holds the state's schema", "exactly once"),
        )
    ):
        _run_v1(stage)

    with stage.step(
        Step(
            "Restart on A with a new output format",
            happens="python -m spark_app --output-format v2: only the code inside foreachBatch "
            "changes; each message line now reads `v2 Experience-0@41: 42 -> 42`",
            watch="the app's batch lines below: their count=… after the restart, against the last "
            "count before it",
            why="Spark's guide allows changing the code of a foreach/foreachBatch sink between "
            "restarts: the offsets and state in the checkpoint still fit the query; the sink's "
            "journal (keyed on the query id, which stays) keeps exactly-once across the switch",
            production="ship output-side changes as a plain restart on the same checkpoint; make "
            "the consumers of the output accept both formats during the switch",
            question="On the same checkpoint with a new output format, will the count start over?",
            answer="No: it goes on, every value once, and the values after the restart are "
            "written in v2.",
            giveaway=("it goes on", "does not start over"),
            checks=("exactly once", "the values after the restart are written in v2"),
        )
    ):
        _allowed_change(stage)

    with stage.step(
        Step(
            "Restart on A with a changed state schema",
            happens="python -m spark_app --output-format v2 --state-schema v2: the count's state "
            "struct gains a field, last_update_ms",
            watch="the app's lines below: a batch line if it runs, its one-line error if it stops",
            why="Spark stores the state's schema beside the state (state/0/0/_metadata/schema) "
            "and compares it with the query's when it plans the first batch with data (the "
            "producer keeps sending, so that is at once); rows written as (count) cannot be read "
            "as (count, last_update_ms), so it refuses rather than guess",
            production="a state-schema change cannot be rolled out on the old checkpoint: run the "
            "new version beside the old one on a new checkpoint (next step), or migrate the "
            "state yourself; never turn off spark.sql.streaming.stateStore.stateSchemaCheck to "
            "force it",
            question="With a field added to the state schema on checkpoint A, will the app start?",
            answer=f"No: it exits 1 with `{REFUSAL_TOKEN}` and {SPARK_ERROR_CLASS}, says how to "
            "upgrade (blue/green), and leaves checkpoint A and the output log untouched.",
            giveaway=(REFUSAL_TOKEN, SPARK_ERROR_CLASS, "exits 1", "refuse"),
            checks=(
                "Spark refused the changed state schema",
                "the app says how to upgrade",
                "checkpoint A and the output log are untouched",
            ),
        )
    ):
        _refused_change(stage)

    with stage.step(
        Step(
            "Blue: the old version runs on checkpoint A again",
            happens="python -m spark_app --output-format v2 (state schema v1) on A",
            watch="the app's first batch lines below: where their range starts, how many rows "
            "they read, and their count=…",
            why="the old version still fits its checkpoint; it keeps the stream served while the "
            "new one starts",
            question="After the refused start, where will the old version on A resume, and will "
            "anything sent meanwhile be lost?",
            answer="Where it stopped: it catches up from its checkpoint on everything sent "
            "meanwhile, every value once, the count going on.",
            production="keep the old version able to run until the new one is trusted: it is "
            "your rollback",
            giveaway=("where it stopped", "catches up from its checkpoint"),
            checks=("blue caught up exactly once",),
        )
    ):
        stage.app.start(output_format="v2")
        report = stage.output.wait_for_value(stage.kafka.window().latest)
        stage.expect(counted_once("blue caught up exactly once", report))
    green = stage.app.beside("green")

    with stage.step(
        Step(
            "Green: the new version starts beside it on a new checkpoint B, from latest",
            happens="python -m spark_app --state-schema v2 --output-format v2 --starting-offsets "
            f"latest --checkpoint-dir {green.folders.checkpoints} --log-dir {green.folders.log}",
            watch="the green app's lines below: its first batch line, where its range starts and "
            "its count=…; the blue app's lines go on beside them",
            why="a new checkpoint has no offsets and no state; `latest` makes it read from the "
            "end of the topic, seed 000's \"second instance ready to process from the end of the "
            'queue"',
            production="the new version must write to an output that tolerates both writers (or "
            "to its own, as here); carry counts over yourself if they must not restart",
            question="Where will green's first value be, and with which Count?",
            answer="Where Kafka's end was when green started, with Count = 1: its state is new.",
            giveaway=("where kafka's end was", "count = 1"),
            checks=(
                "green's first value is where Kafka's end was at its start",
                "green's count starts at 1",
            ),
        )
    ):
        green_first = _start_green(stage, green)

    with stage.step(
        Step(
            "Stop blue once green has output and blue has caught up with green's start",
            happens=f"wait until blue has written value {green_first} (green's first), then "
            "SIGTERM to blue",
            watch="the blue app's batch lines below until it stops; the green app's go on",
            why="stopping blue before it reached green's first value would leave a gap no one "
            'processes (seed 000: "not to stop the previous version too soon")',
            production="the overlap is the price of blue/green: make the output idempotent or "
            "deduplicate downstream on the message's identity",
            question="Blue stops only once it has written green's first value. Which values will "
            "then be in both output logs?",
            answer="Those from green's first value to blue's last: written by both, so the overlap "
            "is not empty. Stopped earlier, blue would leave a gap that no one processes.",
            giveaway=("from green's first value to blue's last", "a gap"),
            checks=("the overlap is not empty (green started before blue stopped)",),
        )
    ):
        _stop_blue(stage, green, green_first)

    with stage.step(
        steps.finish(
            title="Stop the producer, let green catch up, compare both output logs",
            happens="the producer stops; green reads what is left and is stopped; the scenario "
            "verifies blue's log, green's log and their union",
            watch="the producer's lines stop; the green app's batch lines catch up to its last "
            "offset",
            why="each app is exactly-once on its own checkpoint; between them only the overlap "
            "is doubled, and that is expected, not a failure",
            question="Across both outputs, will any value be missing, and is anything doubled "
            "besides the overlap?",
            answer="None missing, and only the overlap is doubled, each of its values exactly "
            "twice; blue's log holds 1..its last once, green's its first..N once with its count "
            "from 1, and the union's count falls back to 1 only where green begins.",
            production="deduplicate the overlap downstream on the message's identity, or make the "
            "output idempotent",
            giveaway=("none missing", "only the overlap"),
            checks=(
                "exactly once",
                "missing values",
                "green wrote its values once, its count from 1",
                "nothing is missing across both outputs",
                "duplicated values",
                "count resets",
            ),
        )
    ):
        _finish(stage, green)


def _run_v1(stage: Stage) -> None:
    stage.app.start()
    stage.output.wait_for_value(stage.timings.run_for_messages)
    stage.app.stop()
    fields = stored_state_fields(stage.folders.checkpoints)
    stage.expect(
        check(
            "checkpoint A holds the state's schema",
            fields == ("count",),
            "the state's fields stored in state/0/0/_metadata/schema: (count)",
            f"({', '.join(fields)})" if fields else "no stored schema",
        )
    )
    report = stage.output.verify()
    stage.fact("v1_highest", report.highest)
    stage.expect(exactly_once(report, report.highest or 0))


def _allowed_change(stage: Stage) -> None:
    before = stage.output.verify()
    stage.app.start(output_format="v2")
    stage.output.wait_for_more(stage.timings.run_for_messages)
    stage.app.stop()
    report = stage.output.verify()
    total = stage.fact("v2_format_highest", report.highest or 0)
    stage.expect(exactly_once(report, total))
    new_values = total - (before.highest or 0)
    stage.expect(
        check(
            "the values after the restart are written in v2",
            new_values > 0 and report.v2_messages >= new_values,
            f"at least {new_values} v2 message lines",
            f"{report.v2_messages} v2 message lines",
        )
    )


def _refused_change(stage: Stage) -> None:
    checkpoint = stage.folders.checkpoints
    before = read_checkpoint(checkpoint)
    log_bytes = stage.folders.output_log.stat().st_size
    stage.app.start(output_format="v2", state_schema="v2")
    code = stage.app.wait_exit()
    output = stage.app.output()
    line = next((ln for ln in output.splitlines() if REFUSAL_TOKEN in ln), "")
    stage.say(f"the app said: {line or output.strip()[-300:]}")
    stage.fact("refusal", line)
    stage.expect(
        check(
            "Spark refused the changed state schema",
            code == 1 and SPARK_ERROR_CLASS in line,
            f"exit code 1, `{REFUSAL_TOKEN}: … {SPARK_ERROR_CLASS}`",
            f"exit code {code}, {line[:160] or 'no such line'}",
        )
    )
    stage.expect(
        check(
            "the app says how to upgrade",
            "blue/green" in line,
            "advice: a new --checkpoint-dir beside the old one (blue/green)",
            "given" if "blue/green" in line else "missing",
        )
    )
    after = read_checkpoint(checkpoint)
    size = stage.folders.output_log.stat().st_size
    stage.expect(
        check(
            "checkpoint A and the output log are untouched",
            after.last_committed_id == before.last_committed_id and size == log_bytes,
            f"last commit {before.last_committed_id}, log {log_bytes} bytes",
            f"last commit {after.last_committed_id}, log {size} bytes",
        )
    )


def _start_green(stage: Stage, green: AppPart) -> int:
    """Green on its new checkpoint from latest; its first value."""
    before = stage.kafka.window()
    process = green.start(starting_offsets="latest", output_format="v2", state_schema="v2")
    stage.timeline.event("green started", "start")
    stage.say(f"green started (pid {process.pid}) on {green.folders.checkpoints}")
    first = stage.output.of(green).wait_for_value(1)
    after = stage.kafka.window()
    stage.fact("green_first_value", first.lowest)
    stage.expect(
        within(
            "green's first value is where Kafka's end was at its start",
            first.lowest or 0,
            before.latest + 1,
            after.latest,
        )
    )
    # Count = n pairs with green's n-th message: a count running 1, 2, 3… from its first value.
    stage.expect(
        check(
            "green's count starts at 1",
            first.counts_consistent and first.final_count == first.messages,
            "Count = 1 with green's first value, then 2, 3…",
            f"final count {first.final_count} after {first.messages} message(s), "
            f"{len(first.count_breaks)} count break(s)",
        )
    )
    return first.lowest or 0


def _stop_blue(stage: Stage, green: AppPart, green_first: int) -> None:
    stage.output.wait_for_value(green_first)
    stage.output.of(green).wait_for_value(green_first + 2)
    stage.app.stop()
    stage.timeline.event("blue stopped", "stop")
    both = overlap(stage.output.verify(), stage.output.of(green).verify())
    stage.expect(
        check(
            "the overlap is not empty (green started before blue stopped)",
            both is not None,
            "at least one value in both logs",
            both or "none",
        ),
    )


def _finish(stage: Stage, green: AppPart) -> None:
    total = stage.fact("messages_sent", stage.kafka.stop_producer().latest)
    stage.output.of(green).wait_for_value(total)
    green.stop()
    blue = stage.output.verify()
    green_report = stage.output.of(green).verify()
    stage.expect(exactly_once(blue, blue.highest or 0))
    first = green_report.lowest or 0
    stage.expect(
        missing_exactly(green_report, [ValueRange(1, first - 1)] if first > 1 else []),
    )
    stage.expect(
        check(
            "green wrote its values once, its count from 1",
            not green_report.duplicated
            and green_report.counts_consistent
            and green_report.highest == total
            and green_report.final_count == total - first + 1,
            f"{first}..{total} once, Count 1..{total - first + 1}",
            f"highest {green_report.highest}, final count {green_report.final_count}, "
            f"duplicated {len(green_report.duplicated)}, count breaks "
            f"{len(green_report.count_breaks)}",
        ),
    )
    _union(stage, green.folders.output_log, blue, green_report, total)


def _union(
    stage: Stage, green_log: Path, blue: VerifyReport, green: VerifyReport, total: int
) -> None:
    both = overlap(blue, green)
    lines = (
        stage.folders.output_log.read_text(encoding="utf-8").splitlines()
        + green_log.read_text(encoding="utf-8").splitlines()
    )
    union = verify(lines)
    stage.fact("duplicates", len(both) if both else 0)
    stage.fact("overlap", str(both) if both else "none")
    stage.say(
        f"blue wrote 1..{blue.highest}, green {green.lowest}..{green.highest}: "
        f"{len(both) if both else 0} message(s) processed by both ({both or 'none'}); "
        f"green's count started over at 1 with value {green.lowest}, as its state is new"
    )
    stage.expect(
        check(
            "nothing is missing across both outputs",
            not union.missing and union.highest == total,
            f"1..{total} all present",
            f"missing {union.missing_count}, highest {union.highest}",
        ),
    )
    stage.expect(
        duplicated_exactly(
            union, dict.fromkeys(range(both.first, both.last + 1), 2) if both else {}
        ),
    )
    if green.lowest is not None:
        stage.expect(count_resets_at(union, [green.lowest]))


SCENARIO = Scenario(
    name="upgrade",
    title="changed code on a checkpoint: an allowed change continues, a state-schema change is "
    "refused; blue/green",
    summary="A new output format inside foreachBatch continues from the same checkpoint exactly "
    "once; a field added to the state is refused by Spark "
    "(STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE); the new version then runs beside the old "
    "one on a new checkpoint from latest, and the overlap is counted as duplicates.",
    origin="seed 000",
    about="new code on an old checkpoint: which changes a restart can carry",
    run=run,
    takes="about 2 min: four Spark starts on one checkpoint (one refused on its state schema), "
    "then a blue and a green app side by side",
)
