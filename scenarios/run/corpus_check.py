"""`check-change --corpus DIR --to LINE`: restart each kept checkpoint on a candidate Spark line.

A regression user points a candidate line at a corpus written by today's (`compat --keep DIR`,
scenarios/run/corpus.py). For each kept checkpoint this scenario puts its records back into a
fresh Kafka, under the topic, partitions, offsets and timestamps they first had (the checkpoint
names them), copies the checkpoint into the scenario's own folder (the corpus is only read),
restarts the same query on LINE with the settings it was written with, lets it read every kept
record and judges as compat does: continues (the oracle agrees with the query over the kept
records), refused (Spark's error class), or continues but differs. The writing line's rows are
put back beside the checkpoint, so an append query's whole output, the writing line's rows and
the candidate's, is held against the oracle over every kept record (check_change.judged_rows).

Usage: `scenario = corpus_scenario(CorpusRun(kept, checked_query, to_line="4.2.0"))`
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from kafka_app.sent_records import format_record
from scenarios.checker.change_verdict import judge_change
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.stage.kafka import TopicRecord
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from scenarios.run.check_change import (
    ChangeRun,
    before_restart,
    judge_new_rows,
    judged_rows,
    record_verdict,
    restart_new,
)
from scenarios.run.corpus import KeptCheckpoint
from spark_app.lines.query_lines import QueryChecked
from spark_app.lines.query_rows import BATCH_COLUMN, read_written
from spark_app.settings import SparkAppSettings

__all__ = ["CorpusRun", "corpus_scenario", "judge_kept", "put_rows_back"]


@dataclass(frozen=True)
class CorpusRun:
    """One kept checkpoint to restart, its query as Spark checked it, and the candidate line."""

    kept: KeptCheckpoint
    query: QueryChecked
    to_line: str = ""


def corpus_scenario(run: CorpusRun) -> Scenario:
    manifest = run.kept.manifest
    to = run.to_line or "the locked line"
    return Scenario(
        name=f"corpus-{manifest.cell}-on-{run.to_line or 'locked'}",
        title=f"{manifest.cell}'s checkpoint, written on {manifest.line}, restarted on {to}",
        summary="A kept checkpoint, its rows and its records are put back; the same query "
        "restarts on the candidate line; the oracle judges the query's output against the kept "
        "records.",
        origin="check-change",
        about=f"will a checkpoint written on {manifest.line} restart on {to}?",
        run=partial(_story, run=run),
        takes_query=True,
    )


def _story(stage: Stage, run: CorpusRun) -> None:
    manifest, records = run.kept.manifest, run.kept.records
    if not records:
        raise StepFailed(f"{manifest.cell}: the corpus kept no records to put back")
    topic = records[0].topic
    change = _change(run)
    stage.fact(
        "change",
        {
            "old": manifest.query,
            "new": run.query.path,
            "from": manifest.line,
            "to": run.to_line,
            "settings": manifest.settings,
        },
    )
    stage.fact("corpus", {"cell": manifest.cell, "line": manifest.line, "to": run.to_line})
    with stage.step(
        Step(
            f"Put {len(records)} kept records back into Kafka, and the checkpoint in place",
            happens=f"a fresh Kafka gets topic {topic} with every record at the offset and "
            "timestamp it first had; the kept checkpoint and the writing line's rows are copied "
            "into this run's folder",
            watch="the stage's lines below",
            why="the checkpoint names its topic and offsets: the restart must find them as "
            "the writing line left them",
            production="a corpus of checkpoints written by today's line, restarted on the "
            "candidate before the upgrade: Spark's own tests keep such checkpoints",
            question="Does the corpus change when a candidate restarts it?",
            answer="No: the checkpoint is copied, and only the copy is restarted.",
            giveaway=("copied",),
            checks=(),
        )
    ):
        stage.kafka.start()
        stage.kafka.stop_producer()  # only the kept records go in: no counter beside them
        stage.kafka.add_topic(
            topic,
            [TopicRecord(r.value, r.key, r.partition, r.timestamp_ms) for r in records],
        )
        kept = stage.folders.root / "kept-records.jsonl"
        kept.write_text("".join(format_record(r) + "\n" for r in records), encoding="utf-8")
        shutil.copytree(run.kept.checkpoint, stage.folders.checkpoints, dirs_exist_ok=True)
        old_batches = put_rows_back(stage, run.kept)
    with stage.step(
        Step(
            f"Restart {Path(run.query.path).name} on the kept checkpoint, then judge",
            happens="the query restarts on the candidate line and reads every kept record, "
            "or Spark refuses it; the oracle evaluates it over the kept records",
            watch="the app's lines below: batch lines if it runs, one error line if not",
            why="the same judge as check-change: a restart that runs may still differ",
            production="point the candidate line at the corpus before you upgrade",
            question="Will the candidate take the checkpoint, and agree with the oracle?",
            answer="The verdict below says, from this run.",
            giveaway=(),
            checks=(),
        )
    ):
        refusal = restart_new(stage, Path(run.query.path), change, topic=topic)
        if refusal:
            record_verdict(stage, judge_change(continued=False, refusal=refusal))
            return
        stage.output.wait_until_read(records[-1].offset + 1)
        stage.app.stop()
        comparison = judge_kept(stage, run, old_batches, kept, topic)
        verdict = judge_change(
            continued=True, comparison=comparison, old_key=run.query.key, new_key=run.query.key
        )
        record_verdict(stage, verdict)


def _change(run: CorpusRun) -> ChangeRun:
    """The restart as check-change sees it: the same query on both sides, so judged as compat
    judges a cell."""
    manifest = run.kept.manifest
    return ChangeRun(
        run.query,
        run.query,
        manifest.line,
        run.to_line,
        settings=tuple(manifest.settings.items()),
    )


def put_rows_back(stage: Stage, kept: KeptCheckpoint) -> int:
    """The writing line's rows, copied where the query writes its own, so that the restart's
    rows join them as NEW's joined OLD's in compat; returns their last batch (-1: none, or a
    cell kept before corpora kept rows, which says so)."""
    if kept.rows is None:
        stage.say(
            f"{kept.manifest.cell}: kept without the writing line's rows, so only the rows "
            "after the restart are judged (compat --keep keeps them now)"
        )
        return -1
    output = SparkAppSettings(log_dir=stage.folders.log).query_output
    shutil.copytree(kept.rows, output, dirs_exist_ok=True)
    return max((r[BATCH_COLUMN] for r in read_written(output)), default=-1)


def judge_kept(stage: Stage, run: CorpusRun, old_batches: int, records: Path, topic: str) -> Any:
    """The restart's rows against the oracle over the kept `records`, once the query stopped:
    check_change.judged_rows says which rows and records, as for a compat cell; `old_batches`
    is what put_rows_back returned."""
    before = before_restart(stage, run.kept.manifest.committed_offset, topic)
    after, lost = judged_rows(_change(run), old_batches, before, run.kept.rows is not None)
    return judge_new_rows(stage, run.query, after, lost, records, topic)
