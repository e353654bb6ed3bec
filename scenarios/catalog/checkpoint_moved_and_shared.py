"""Move a checkpoint folder, then run two apps on one checkpoint at once, then two on two copies.

The checkpoint is a folder of plain files: copied to a new path (`cp -a`, as a migration to a
new disk or bucket does), the app started on the copy resumes from its last committed batch
with the same query id (the `metadata` file), exactly once, the output log and its journal
unchanged.

Then a second app starts on the same checkpoint while the first still runs, as when a deploy
starts the new job before the old one has stopped. The two are separate Spark applications, so
Spark's check for a query already active (within one application) cannot see it; Spark notices only
when one of them finds a batch's `offsets/N` or `commits/N` already written by the other
(`CONCURRENT_STREAM_LOG_UPDATE`), and that app stops. Which one, and whether it had already
written the batch's output, depends on the moment: the scenario checks that exactly one stops,
that what both wrote is at most one batch, counted alike, and names the log they collided on.
The second app gets its own `--log-dir`, so the two outputs can be compared.

Then the original folder, still on disk, is started by mistake beside the job on the copy: two
folders share nothing to collide on, so both run, with the same query id, and every value is
written again. The ending drains the job and checks the count and the two logs together.

Usage: `python -m scenarios run checkpoint-moved-and-shared --fast`
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import check, equals
from scenarios.checker.shared_checkpoint import (
    batch_holding,
    collided_on,
    common_prefix,
    counted_values,
    overlap,
)
from scenarios.checker.verify import ranges_of
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, OutputPart, Stage
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from spark_app.checkpoint.inspect import report_in_output
from spark_app.checkpoint.reader import committed_batches
from spark_app.errors import CheckpointSharedError, error_in_text

__all__ = ["SCENARIO", "run"]

# How long the two apps may run together after the second wrote its first message, at most
# (seconds): they collide on the next batch's log files, a second or two in every run seen.
SHARED_WINDOW_SEC = 60.0

SHARED_ANSWER = (
    "Only the collision on the checkpoint's own logs: whichever app comes second to a batch's "
    "offsets/N or commits/N stops with CONCURRENT_STREAM_LOG_UPDATE, and the other goes on. "
    "Spark does not see the outputs: an app that replayed the pending batch wrote its output "
    "before failing on commits/N, so that batch is in both logs, with the same counts; nothing "
    "else is in both (all checked)."
)
# The folder the checkpoint is copied into, under the run's folder.
MOVED = "moved"


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer, sending a counter; the topic keeps every "
            "message for the whole run",
            why="every app in this story reads the same topic; only the checkpoint says where",
            question="Does the checkpoint's path matter to Kafka?",
            answer="No: neither Kafka source commits offsets to Kafka; where the query resumes "
            "is in the checkpoint's files, wherever they are.",
            production="a checkpoint is the query's memory of Kafka; keep it with the job, not "
            "with the cluster",
            giveaway=("commits offsets", "checkpoint's files"),
            checks=(),
        )
    ):
        stage.kafka.start()
    original_id = _first_run(stage)
    moved = _moved(stage, original_id)
    second, job, doubled = _shared(stage, moved)
    _old_path(stage, (stage.app, second), job, moved)
    _final(stage, (stage.app, second), job, doubled)


def _query_id(stage: Stage, folder: Path, name: str) -> str | None:
    """The query id as `python -m spark_app inspect` prints it (no Spark start)."""
    code, output = stage.app.inspect(
        "--checkpoint-dir", str(folder), "--no-state", "--json", name=name
    )
    report = report_in_output(output) or {}
    found = report.get("query_id")
    stage.say(f"inspect {folder.name}/..: query id {found} (exit {code})")
    return found


def _first_run(stage: Stage) -> str | None:
    with stage.step(
        steps.first_start(
            title="First run on the original folder",
            happens="the app starts on a new checkpoint, counts from earliest and is stopped; "
            "then `inspect` reads the stopped checkpoint",
            watch="the app's batch lines below, the count running on, then its stop; then the "
            "narration's `inspect checkpoints/..: query id …` line",
            why="Spark writes the query id once, into `metadata`, when a query starts on an "
            "empty folder; every later start on that folder keeps it (the run id changes every "
            "start)",
            question="Where does the query id live, and when is it chosen?",
            answer="In the checkpoint's `metadata` file, written at the first start; inspect "
            "prints it (checked).",
            production="the query id names the query in Spark's listeners and in any sink keyed "
            "on it (ours: the exactly-once journal); it is the checkpoint's, not the job's",
            giveaway=("metadata",),
            checks=("inspect prints the query id from metadata",),
        )
    ):
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.app.stop()
        found = stage.fact(
            "query_id", _query_id(stage, stage.folders.checkpoints, "inspect-original")
        )
        stage.expect(
            check(
                "inspect prints the query id from metadata", found is not None, "a query id", found
            )
        )
    return found


def _moved(stage: Stage, original_id: str | None) -> Path:
    moved = stage.folders.root / MOVED / "checkpoints"
    with stage.step(
        Step(
            "Copy the folder to a new path, resume from the copy",
            happens=f"cp -a of the stopped app's checkpoint to {MOVED}/checkpoints, then the "
            "same app started with --checkpoint-dir on the copy",
            watch="the restarted app's first batch lines below: the offset its first batch "
            "starts from, and its count=",
            why="nothing in a checkpoint names its own path: offsets, commits, state and "
            "metadata are relative files, so a copy of a stopped query's folder is the same "
            "query",
            question="Started on the copy, does the query start over, skip or double anything, "
            "and which query id does it have?",
            answer="It resumes after the last committed batch: nothing missing, nothing doubled, "
            "the count goes on, and the query id in the copy's metadata is the original's (all "
            "checked).",
            production="move a checkpoint only while its query is stopped, copy the whole folder "
            "(hidden .crc files too), then start on the copy and retire the old path",
            giveaway=("the original's", "resumes after", "same query id"),
            checks=(
                "resumed after the last value before the move, nothing lost or doubled",
                "the copy's query id (metadata)",
            ),
        )
    ):
        before = stage.output.verify()
        shutil.copytree(stage.folders.checkpoints, moved, symlinks=True)
        stage.timeline.event("checkpoint copied", "reset")
        stage.say(
            f"copied {stage.folders.checkpoints} to {moved} "
            f"({sum(1 for _ in moved.rglob('*'))} entries)"
        )
        stage.app.start(checkpoint_dir=moved)
        stage.shown_checkpoints = moved
        report = stage.output.wait_for_more(stage.timings.run_for_messages)
        stage.app.wait_while_up(
            lambda: _committed_end(moved) >= (report.highest or 0),
            "the copy to commit what was written",
            poll=0.2,
        )
        stage.expect(
            check(
                "resumed after the last value before the move, nothing lost or doubled",
                report.ok and not report.count_breaks,
                f"values 1..{report.highest} once, counts 1..{report.highest}",
                f"missing {report.missing_count}, doubled {len(report.duplicated)}, "
                f"count breaks {len(report.count_breaks)}, last before {before.last_value}",
            )
        )
        moved_id = stage.fact("moved_query_id", _query_id(stage, moved, "inspect-moved"))
        stage.expect(equals("the copy's query id (metadata)", moved_id, original_id))
    return moved


def _committed_end(folder: Path) -> int:
    batches = committed_batches(folder)
    return (batches[-1].end_total or 0) if batches else 0


def _shared(stage: Stage, moved: Path) -> tuple[AppPart, AppPart, tuple[int, ...]]:
    """Start a second app on the copy the first runs on; the second, the app that goes on (the
    job from now on), and the values both wrote."""
    with stage.step(
        Step(
            "A second app on the same checkpoint while the first runs",
            happens="a second Spark app with its own --log-dir and the same --checkpoint-dir "
            "starts while the first goes on, as a deploy that starts the new job before the old "
            "one has stopped",
            watch="both apps' lines below: their batch lines, and the last line of any app that "
            "stops",
            why="two Spark applications share no memory: each only finds, when it writes a "
            "batch's offsets/N or commits/N, that the file is already there "
            "(HDFSMetadataLog.add); Spark's check for a query already active (\"another query "
            'with same id is already active", CONCURRENT_QUERY) sees the queries of one Spark '
            "application only",
            question="What will Spark detect, and what happens to the two outputs?",
            answer=SHARED_ANSWER,
            production="one writer per checkpoint: stop the old job (and see it exit) before the "
            "new one starts, and hold a lock or lease outside Spark for the checkpoint's path; "
            "Spark's own check only covers one application, and its log check may fire only "
            "after the batch's output was written",
            giveaway=("concurrent_stream_log_update", "collision", "collide"),
            checks=(
                "exactly one of the two apps stopped, the other goes on",
                "the app that stopped named a second writer",
                "what both wrote is at most one batch, counted alike",
            ),
        )
    ):
        return _second_writer(stage, moved)


def _second_writer(stage: Stage, moved: Path) -> tuple[AppPart, AppPart, tuple[int, ...]]:
    first = stage.app
    second = first.beside("second")
    stage.timeline.event("second app on the same checkpoint", "start")
    launched = time.monotonic()
    second.start(checkpoint_dir=moved)
    second_out = stage.output.of(second)
    ended = _first_to_stop(stage, first, second, second_out)
    # Mostly the second app's Spark start: the collision comes with its first batch.
    stage.fact("second_start_to_stop_sec", round(time.monotonic() - launched, 1))
    stage.fact("stopped_app", ended.name if ended else None)
    survivor = second if ended is first else first
    stage.expect(
        check(
            "exactly one of the two apps stopped, the other goes on",
            ended is not None and survivor.running,
            "one stopped, one running",
            f"{ended.name if ended else 'none'} stopped, "
            f"{survivor.name} {'running' if survivor.running else 'stopped'}",
        )
    )
    if ended is None:
        raise StepFailed(
            "neither app stopped while both ran on one checkpoint: "
            f"{SHARED_WINDOW_SEC:g} s after the second's first output"
        )
    stage.timeline.event(f"{ended.name} stopped (exit {ended.process.returncode})", "crash")
    said = error_in_text(ended.last_words())
    stage.fact("stopped_app_line", str(said) if said else ended.last_words())
    log = stage.fact("collided_on", collided_on(ended.spark_log()))
    stage.say(f"{ended.name} said: {said}")
    stage.say(
        f"its spark.log: the collision was on {log}/N ("
        + {
            "offsets": "planning the batch: markMicroBatchStart",
            "commits": "ending the batch, after its output: markMicroBatchEnd",
        }.get(log or "", "not found")
        + ")"
    )
    stage.expect(
        check(
            "the app that stopped named a second writer",
            isinstance(said, CheckpointSharedError) and "CONCURRENT_STREAM_LOG_UPDATE" in str(said),
            "CHECKPOINT_SHARED: [CONCURRENT_STREAM_LOG_UPDATE] … Multiple streaming "
            "jobs detected for N",
            str(said)[:160] if said else ended.last_words(),
        )
    )
    stage.output.of(survivor).wait_for_more(3)
    ends = {b.batch_id: b.end_total or 0 for b in committed_batches(moved)}
    both = overlap(
        counted_values(first.folders.output_log), counted_values(second.folders.output_log)
    )
    batch = batch_holding(ends, both.both)
    stage.fact("written_by_both", list(both.both))
    stage.fact("written_by_both_batch", batch)
    stage.say(
        f"written by both apps: {_ranges(both.both) or 'nothing'}"
        + (f" (batch {batch})" if batch is not None else "")
    )
    stage.expect(
        check(
            "what both wrote is at most one batch, counted alike",
            (not both.both or batch is not None) and not both.counts_differ,
            "at most one batch's values (the batch the stopped app ran too), "
            "the same counts in both logs",
            f"{_ranges(both.both) or 'nothing'}"
            + (f" = batch {batch}" if batch is not None else " (not one batch)")
            + f"; counts differ on {_ranges(both.counts_differ) or 'none'}",
        )
    )
    if ended is first:
        stage.timeline.app_down()
    return second, survivor, both.both


def _first_to_stop(
    stage: Stage, first: AppPart, second: AppPart, second_out: OutputPart
) -> AppPart | None:
    """Wait until one of the two apps stops; None if both still run SHARED_WINDOW_SEC after the
    second wrote its first message (or started, if it never writes)."""
    since: list[float] = []

    def settled() -> AppPart | bool | None:
        for app in (first, second):
            if not app.running:
                return app
        if not since and second_out.verify().messages > 0:
            since.append(time.monotonic())
        return bool(since) and time.monotonic() - since[0] > SHARED_WINDOW_SEC or None

    found = wait_until(
        settled,
        timeout=stage.timings.spark_start_timeout_sec + SHARED_WINDOW_SEC,
        what="one of the two apps on the checkpoint to stop",
        poll=0.3,
        progress=stage.waiting,
    )
    return found if isinstance(found, AppPart) else None


def _old_path(stage: Stage, apps: tuple[AppPart, AppPart], job: AppPart, moved: Path) -> None:
    """The original folder, still on disk, started by mistake beside the job on the copy."""
    with stage.step(
        Step(
            "The old folder started by mistake beside the job",
            happens="a third app starts on the original folder (still on disk after the copy) "
            "while the job runs on the copy",
            watch="the job's and the third app's batch lines below, side by side, and the last "
            "line of any app that stops",
            why="two folders are two checkpoints to Spark: nothing is shared to collide on, "
            "although both hold the same query id; the old one resumes where the first run "
            "stopped",
            question="Will Spark notice two apps running the same query from two folders?",
            answer="No: both run without an error, with the same query id, and the old folder's "
            "app writes again every value the job wrote after the move, with the same counts "
            "(all checked).",
            production="retire the old path once the copy has committed (delete it, or make it "
            "unreadable to the job's account): a copy that can be started will be, and nothing "
            "in Spark tells the two apart",
            giveaway=("without an error", "writes again", "written again", "nothing notices"),
            checks=(
                "neither app noticed the other",
                "the old folder's app wrote the job's values again, counted alike",
                "query ids of the two running folders",
            ),
        )
    ):
        old = job.beside("old-path")
        stage.timeline.event("old folder started by mistake", "start")
        old.start(checkpoint_dir=stage.folders.checkpoints)
        target = (stage.output.of(job).verify().highest or 0) + 3
        stage.output.of(old).wait_for_value(target)
        # Both go on writing: compare what both have written (the job writes the old app's
        # newest values in its next batch, which a loaded machine may not have run yet).
        extra = overlap(*common_prefix(_written(apps), counted_values(old.folders.output_log)))
        stage.fact("old_path_written_again", len(extra.both))
        stage.expect(
            check(
                "neither app noticed the other",
                job.running and old.running,
                "both running",
                f"job {'running' if job.running else 'stopped'}, old "
                f"folder's app {'running' if old.running else 'stopped'}",
            )
        )
        stage.expect(
            check(
                "the old folder's app wrote the job's values again, counted alike",
                not extra.only_second and not extra.counts_differ and len(extra.both) > 0,
                "every value it wrote also in the job's output, with the same count",
                f"{len(extra.both)} written by both ({_ranges(extra.both)}), only by it: "
                f"{_ranges(extra.only_second) or 'none'}, counts differ on "
                f"{_ranges(extra.counts_differ) or 'none'}",
            )
        )
        ids = {
            _query_id(stage, folder, f"inspect-{name}")
            for folder, name in ((stage.folders.checkpoints, "old"), (moved, "job"))
        }
        stage.expect(
            equals(
                "query ids of the two running folders",
                len(ids),
                1,
                lambda n: f"{n} query id{'s' if n != 1 else ''}",
            )
        )
        old.stop()


def _final(
    stage: Stage, apps: tuple[AppPart, AppPart], job: AppPart, doubled: tuple[int, ...]
) -> None:
    with stage.step(
        steps.finish(
            title="One writer again: drain and count",
            happens="the producer stops; the app still running on the copy drains the topic and "
            "is stopped; its output log and the second app's are read together",
            watch="the producer's lines stop; the job's last batch lines catch up to its last "
            "offset",
            why="both apps read the same state version before their collision, so the state "
            "after it is the one a single writer would have",
            question="After the collision, is the count right, and what does a reader of both "
            "output logs see?",
            answer="The count is right: the last Count is the number sent. The two logs hold "
            "every value, and twice only the batch both apps wrote in the collision, if any "
            "(checked).",
            production="a sink that two jobs may write to for a moment must be idempotent on a "
            "business key (a MERGE or upsert), not only on the query id and batch id: both apps "
            "wrote the same batch of the same query id",
            giveaway=("count is right", "the number sent"),
            checks=(
                "the last Count",
                "the two logs together: every value, only the shared batch twice",
            ),
        )
    ):
        total = stage.fact("messages_sent", stage.kafka.stop_producer().latest)
        report = stage.output.of(job).wait_for_value(total)
        job.stop()
        stage.expect(equals("the last Count", report.final_count, total, lambda n: f"Count = {n}"))
        both = overlap(*(counted_values(app.folders.output_log) for app in apps))
        missing = sorted(set(range(1, total + 1)) - set(both.union))
        stage.expect(
            check(
                "the two logs together: every value, only the shared batch twice",
                not missing and both.both == doubled,
                f"1..{total}, twice: {_ranges(doubled) or 'nothing'}",
                f"missing {_ranges(missing) or 'none'}, twice: {_ranges(both.both) or 'nothing'}",
            )
        )


def _written(apps: tuple[AppPart, AppPart]) -> list[tuple[int, int | None]]:
    """What the job wrote, over both apps that ran on the copy (value, count)."""
    return [pair for app in apps for pair in counted_values(app.folders.output_log)]


def _ranges(values: Iterable[int]) -> str:
    return ", ".join(str(r) for r in ranges_of(sorted(values)))


SCENARIO = Scenario(
    name="checkpoint-moved-and-shared",
    title="a copied checkpoint is the same query; a second writer is caught late, a copy never",
    summary="The stopped app's checkpoint folder is copied to a new path and the app resumes from "
    "the copy: the same query id, exactly once. Then a second app starts on the same "
    "checkpoint while the first runs: one of them stops on Spark's log check, the other "
    "goes on; what both wrote is compared. Then the old folder is started by mistake: "
    "nothing notices, every value is written again.",
    origin="production: changing a live job",
    about="what a checkpoint folder is to Spark when it is copied to a new path, shared by two "
    "apps at once, or left behind as a second copy",
    run=run,
    takes="about 2 min: five Spark starts, two of them beside a running app on the same "
    "checkpoint, until Spark catches the second writer",
)
