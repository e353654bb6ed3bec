"""Move a checkpoint folder, then run two apps on one checkpoint at once.

The checkpoint is a folder of plain files: copied to a new path (`cp -a`, as a migration to a
new disk or bucket does), the app started on the copy resumes from its last committed batch
with the same query id (the `metadata` file), exactly once, the output log and its journal
unchanged.

Then a second app starts on the same checkpoint while the first still runs, as when a deploy
starts the new job before the old one has stopped, or a copy is started by mistake. The two
are separate Spark applications, so Spark's own check for a query already active (one
session's) cannot see it. What each app does, and what the two output logs hold, is observed:
the second gets its own `--log-dir` so the two outputs can be compared.

Usage: `python -m scenarios run checkpoint-moved-and-shared --fast`
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from scenarios.checker.expectations import check, equals, exactly_once
from scenarios.checker.shared_checkpoint import concurrent_write_words, counted_values, overlap
from scenarios.engine.registry import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.waiting import wait_until
from scenarios.report.narration import Step
from spark_app.checkpoint.inspect import report_in_output
from spark_app.checkpoint.reader import committed_batches

__all__ = ["SCENARIO", "run"]

# How long the two apps run together once the second has started, at most (seconds).
SHARED_WINDOW_SEC = 60.0


def run(stage: Stage) -> None:
    stage.step(Step(
        "Start Kafka and the producer",
        happens="one topic that keeps everything",
        watch="the producer's lines",
        why="every app in this story reads the same topic; only the checkpoint says where",
        question="Does the checkpoint's path matter to Kafka?",
        answer="No: the app reads the topic with no consumer group; where it resumes is in the "
               "checkpoint's files, wherever they are.",
        production="a checkpoint is the query's memory of Kafka; keep it with the job, not with "
                   "the cluster"))
    stage.kafka.start()
    original_id = _first_run(stage)
    moved = _moved(stage, original_id)
    _shared(stage, moved)


def _query_id(stage: Stage, folder: Path, name: str) -> str | None:
    """The query id as `python -m spark_app inspect` prints it (no Spark start)."""
    code, output = stage.app.inspect("--checkpoint-dir", str(folder), "--no-state", "--json",
                                     name=name)
    report = report_in_output(output) or {}
    found = report.get("query_id")
    stage.say(f"inspect {folder.name}/..: query id {found} (exit {code})")
    return found


def _first_run(stage: Stage) -> str | None:
    stage.step(Step(
        "First run on the original folder",
        happens="the app starts on a new checkpoint, counts from earliest and is stopped",
        watch="Count = n runs 1, 2, 3…; the checkpoint's `metadata` file gets the query id",
        why="Spark writes the query id once, into `metadata`, when a query starts on an empty "
            "folder; every later start on that folder keeps it (the run id changes every start)",
        question="Where does the query id live, and when is it chosen?",
        answer="In the checkpoint's `metadata` file, written at the first start; inspect prints it.",
        production="the query id names the query in Spark's listeners and in any sink keyed on it "
                   "(ours: the exactly-once journal); it is the checkpoint's, not the job's",
        phase="original"))
    stage.app.start()
    stage.output.wait_for_value(stage.timings.run_for_messages)
    stage.app.stop()
    return stage.fact("query_id", _query_id(stage, stage.folders.checkpoints, "inspect-original"))


def _moved(stage: Stage, original_id: str | None) -> Path:
    moved = stage.folders.root / "moved" / "checkpoints"
    stage.step(Step(
        "Copy the folder to a new path, resume from the copy",
        happens=f"cp -a of the stopped app's checkpoint to {moved.parent.name}/checkpoints, then "
                "the same app started with --checkpoint-dir on the copy",
        watch="the first value after the restart is the one after the last value before it, "
              "and its Count goes on",
        why="nothing in a checkpoint names its own path: offsets, commits, state and metadata are "
            "relative files, so a copy of a stopped query's folder is the same query",
        question="Started on the copy, does the query start over, skip or double anything, and "
                 "which query id does it have?",
        answer="It resumes after the last committed batch: nothing missing, nothing doubled, the "
               "count goes on, and the query id in the copy's metadata is the original's (all "
               "checked).",
        production="move a checkpoint only while its query is stopped, copy the whole folder "
                   "(hidden .crc files too), then start on the copy and retire the old path",
        phase="moved"))
    before = stage.output.verify()
    shutil.copytree(stage.folders.checkpoints, moved, symlinks=True)
    stage.timeline.event("checkpoint copied", "reset")
    stage.say(f"copied {stage.folders.checkpoints} to {moved} "
              f"({sum(1 for _ in moved.rglob('*'))} entries)")
    stage.app.start(checkpoint_dir=moved)
    stage.shown_checkpoints = moved
    report = stage.output.wait_for_more(stage.timings.run_for_messages)
    stage.app.wait_while_up(lambda: _committed_end(moved) >= (report.highest or 0),
                            "the copy to commit what was written", poll=0.2)
    stage.expect(check("resumed after the last value before the move, nothing lost or doubled",
                       report.ok and not report.count_breaks,
                       f"values 1..{report.highest} once, counts 1..{report.highest}",
                       f"missing {report.missing_count}, doubled {len(report.duplicated)}, "
                       f"count breaks {len(report.count_breaks)}, last before {before.last_value}"))
    moved_id = stage.fact("moved_query_id", _query_id(stage, moved, "inspect-moved"))
    stage.expect(equals("the copy's query id (metadata)", moved_id, original_id))
    return moved


def _committed_end(folder: Path) -> int:
    batches = committed_batches(folder)
    return sum((batches[-1].end or {}).values()) if batches else 0


def _shared(stage: Stage, moved: Path) -> None:
    stage.step(Step(
        "A second app on the same checkpoint while the first runs",
        happens="a second Spark app, its own --log-dir, the same --checkpoint-dir, started while "
                "the first goes on",
        watch="whether either app stops with CONCURRENT_STREAM_LOG_UPDATE, and what each "
              "output log holds",
        why="two Spark applications share no memory: each checks only that the next batch's "
            "offsets/N and commits/N do not exist yet when it writes them",
        question="What will Spark detect, and what happens to the two outputs?",
        answer="(observed)",
        production="one writer per checkpoint: stop the old job before the new one starts, and "
                   "hold a lock or lease outside Spark; Spark's check for an active query only "
                   "sees the queries of one session",
        phase="shared"))
    first = stage.app
    second = first.beside("second")
    second.start(checkpoint_dir=moved)
    second_out = stage.output.of(second)
    started = time.monotonic()

    def settled() -> str | None:
        if not first.running:
            return "first"
        if not second.running:
            return "second"
        if second_out.verify().messages >= 2 * stage.timings.run_for_messages and \
                time.monotonic() - started > SHARED_WINDOW_SEC:
            return "neither"
        return None

    ended = wait_until(settled, timeout=stage.timings.spark_start_timeout_sec + SHARED_WINDOW_SEC,
                       what="one of the two apps to stop, or both to run a while",
                       poll=0.5, progress=stage.narrator.waiting)
    stage.fact("first_to_stop", ended)
    for app in (first, second):
        code = app.process.returncode
        text = app.output() + app.spark_log()
        words = concurrent_write_words(text)
        stage.fact(f"{app.name}_exit", code)
        stage.fact(f"{app.name}_words", list(words))
        stage.say(f"{app.name}: running={app.running} exit={code} words={words}")
        if not app.running:
            stage.say(f"{app.name}'s last words: {app.last_words()}")
    a = counted_values(first.folders.output_log)
    b = counted_values(second.folders.output_log)
    both = overlap(a, b)
    stage.fact("overlap", {"only_first": len(both.only_first), "only_second": len(both.only_second),
                           "both": list(both.both), "counts_differ": list(both.counts_differ)})
    stage.say(f"second wrote {len(b)} messages: {b[:5]}…{b[-5:]}")
    stage.say(f"overlap: both {both.both}, counts differ {both.counts_differ}")
    stage.say(json.dumps({"batches": [bt.batch_id for bt in committed_batches(moved)][-10:]}))
    for app in (first, second):
        if app.running:
            app.stop()


SCENARIO = Scenario(
    name="checkpoint-moved-and-shared",
    title="a copied checkpoint resumes as the same query; two apps on one checkpoint",
    summary="The stopped app's checkpoint folder is copied to a new path and the app resumes from "
            "the copy: the same query id, exactly once. Then a second app starts on the same "
            "checkpoint while the first runs; what Spark detects and what each output holds.",
    origin="production: changing a live job",
    run=run,
)
