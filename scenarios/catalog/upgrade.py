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

from scenarios.checker.expectations import (
    check,
    count_resets_at,
    duplicated_exactly,
    exactly_once,
    missing_exactly,
    within,
)
from scenarios.checker.verify import ValueRange, VerifyReport, verify
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_schema import REFUSAL_CLASSES
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
    stage.step(
        Step(
            "Start Kafka and the producer",
            happens="endless retention, so nothing here is about Kafka deleting data",
            watch="the producer's latest offset keeps growing while versions come and go",
            why="messages sent while the app is down wait in Kafka for the next version",
            question="While one version is stopped and the next not yet started, where do the new "
            "messages go?",
            answer="Into Kafka, which keeps them (endless retention here) for whichever version starts "
            "next.",
            production="plan a deploy's downtime against retention: the backlog must still be there "
            "when the new version starts",
        )
    )
    stage.kafka.start()
    _run_v1(stage)
    _allowed_change(stage)
    _refused_change(stage)
    _blue_green(stage)


def _run_v1(stage: Stage) -> None:
    stage.step(
        Step(
            "Run version 1 on checkpoint A",
            happens="python -m spark_app (output format v1, state schema v1), checkpoints in A",
            watch="`Count = n` and `Experience: n -> n` lines in the output log",
            why="the checkpoint records offsets, state and the state's schema, not the code",
            question="Does checkpoint A hold version 1's code?",
            answer="No: offsets, state and the state's schema; the run writes every value once "
            "(checked).",
            production="version the job's code and its checkpoint together: the deploy record should "
            "say which checkpoint each release ran on",
        )
    )
    stage.app.start()
    stage.output.wait_for_value(stage.timings.run_for_messages)
    stage.app.stop()
    report = stage.output.verify()
    stage.fact("v1_highest", report.highest)
    stage.expect(exactly_once(report, report.highest or 0))


def _allowed_change(stage: Stage) -> None:
    before = stage.output.verify()
    stage.step(
        Step(
            "Restart on A with a new output format (an allowed change)",
            happens="python -m spark_app --output-format v2: only the code inside foreachBatch "
            "changes; each message line now reads `v2 Experience-0@41: 42 -> 42`",
            watch=f"the first v2 line follows value {before.highest}; the count goes on from "
            f"{before.final_count}, it does not start over",
            why="Spark's guide allows changing the code of a foreach/foreachBatch sink between "
            "restarts: the offsets and state in the checkpoint still fit the query; the sink's "
            "journal (keyed on the query id, which stays) keeps exactly-once across the switch",
            production="ship output-side changes as a plain restart on the same checkpoint; make "
            "the consumers of the output accept both formats during the switch",
            question="On the same checkpoint with a new output format, will the count start over?",
            answer="No: it goes on, every value once, and the values after the restart are written in "
            "v2 (both checked).",
        )
    )
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
    stage.step(
        Step(
            "Restart on A with a changed state schema (a refused change)",
            happens="python -m spark_app --output-format v2 --state-schema v2: the count's state "
            "struct gains a field, last_update_ms",
            watch=f"the app exits 1 with `{REFUSAL_TOKEN}` and Spark's own error class "
            f"{SPARK_ERROR_CLASS}; the checkpoint and the output log stay as they were",
            why="Spark stores the state's schema beside the state (state/0/0/_metadata/schema) and "
            "compares it with the query's when it plans the first batch with data (the producer "
            "keeps sending, so that is at once); rows written as (count) cannot be read as "
            "(count, last_update_ms), so it refuses rather than guess",
            production="a state-schema change cannot be rolled out on the old checkpoint: run the "
            "new version beside the old one on a new checkpoint (next step), or migrate "
            "the state yourself; never turn off spark.sql.streaming.stateStore."
            "stateSchemaCheck to force it",
            question="With a field added to the state schema on checkpoint A, will the app start?",
            answer=f"No: it exits 1 with `{REFUSAL_TOKEN}` and {SPARK_ERROR_CLASS}, says how "
            "to upgrade (blue/green), and leaves checkpoint A and the output log "
            "untouched (all checked)",
        )
    )
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


def _blue_green(stage: Stage) -> None:
    stage.step(
        Step(
            "Blue: the old version runs on checkpoint A again",
            happens="python -m spark_app --output-format v2 (state schema v1) on A",
            watch="it catches up with what was sent meanwhile; nothing lost, the count goes on",
            why="the old version still fits its checkpoint; it keeps the stream served while the "
            "new one starts",
            question="Will the old version on A have lost the messages sent while it was down?",
            answer="No: it catches up from its checkpoint, and the count goes on.",
            production="keep the old version able to run until the new one is trusted: it is your "
            "rollback",
        )
    )
    stage.app.start(output_format="v2")
    stage.output.wait_for_value(stage.kafka.window().latest)
    green = stage.app.beside("green")
    stage.step(
        Step(
            "Green: the new version starts beside it on a new checkpoint B, from latest",
            happens=f"python -m spark_app --state-schema v2 --output-format v2 --starting-offsets "
            f"latest --checkpoint-dir {green.folders.checkpoints} --log-dir "
            f"{green.folders.log}",
            watch="green's output log starts near Kafka's latest offset with Count = 1: its state "
            "is new, so its count starts over; blue goes on writing the same messages",
            why="a new checkpoint has no offsets and no state; `latest` makes it read from the end "
            "of the topic, seed 000's \"second instance ready to process from the end of the "
            'queue"',
            production="the new version must write to an output that tolerates both writers (or "
            "to its own, as here); carry counts over yourself if they must not restart",
            question="Where will green's first value be, and with which Count?",
            answer="Where Kafka's end was when green started (checked), with Count = 1: its state is "
            "new.",
        )
    )
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
    _stop_blue(stage, green, first.lowest or 0)
    _finish(stage, green)


def _stop_blue(stage: Stage, green: AppPart, green_first: int) -> None:
    stage.step(
        Step(
            "Stop blue once green has output and blue has caught up with green's start",
            happens=f"wait until blue has written value {green_first} (green's first), then SIGTERM "
            f"to blue",
            watch="both logs hold the values from green's first to blue's last: those messages "
            "were processed twice",
            why="stopping blue before it reached green's first value would leave a gap no one "
            'processes (seed 000: "not to stop the previous version too soon")',
            production="the overlap is the price of blue/green: make the output idempotent or "
            "deduplicate downstream on the message's identity",
            question="Why wait for blue to reach green's first value before stopping it?",
            answer="Stopped earlier, blue would leave a gap no one processes; waited for, the values "
            "from green's first to blue's last are written by both.",
        )
    )
    stage.output.wait_for_value(green_first)
    stage.output.of(green).wait_for_value(green_first + 2)
    stage.app.stop()
    stage.timeline.event("blue stopped", "stop")


def _finish(stage: Stage, green: AppPart) -> None:
    stage.step(
        Step(
            "Stop the producer, let green catch up, compare both output logs",
            happens="the scenario verifies blue's log, green's log and their union",
            watch="blue: 1..its last value once; green: its first value..N once, Count from 1; "
            "union: nothing missing, the overlap counted as duplicates",
            why="each app is exactly-once on its own checkpoint; between them only the overlap "
            "is doubled, and that is expected, not a failure",
            question="Across both outputs, will any value be missing, and which ones are doubled?",
            answer="None missing; exactly the overlap, from green's first value to blue's last, is "
            "written twice, and it is not empty; each app is exactly-once on its own (all "
            "checked).",
            production="deduplicate the overlap downstream on the message's identity, or make the "
            "output idempotent",
        )
    )
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
    stage.expect(
        check(
            "the overlap is not empty (green started before blue stopped)",
            both is not None,
            "at least one value in both logs",
            both or "none",
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
    run=run,
    takes="about 2 min: four Spark starts on one checkpoint (one refused on its state schema), "
    "then a blue and a green app side by side",
)
