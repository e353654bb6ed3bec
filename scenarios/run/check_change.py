"""`python -m scenarios check-change OLD.py NEW.py`: will my checkpoint take the change I deploy
tomorrow? Run it, don't guess.

Told as a scenario of its own, with the stage, its narration and its report: Kafka and the
producer; OLD on a fresh checkpoint until it has committed a short stream; OLD stopped as a
deploy stops it (SIGTERM); NEW restarted on the same checkpoint, on the same Spark line or
another (`--from`, `--to`); then, if NEW runs, the oracle evaluates NEW over every record sent
and the checker judges the change (scenarios/checker/change_verdict.py): continues, refused (with
Spark's error class), or continues but differs (the keys, the likely cause). What the
checkpoint pinned that NEW asks to change (shuffle partitions, the state store) is shown before
NEW starts.

A query module may name the app's settings it runs with, for the changes that are settings
rather than code: `SETTINGS = {"shuffle_partitions": 4, "max_offsets_per_trigger": 10}` (any
of `python -m spark_app`'s options, by their settings' names).

Usage: `scenario = change_scenario(Path("old.py"), Path("new.py"), messages=20)`
"""

from __future__ import annotations

import argparse
import ast
import shutil
from dataclasses import dataclass, fields
from functools import partial
from pathlib import Path
from typing import Any

from kafka_app.sent_records import SENT_RECORDS_FILE, read_sent_records
from launch.errors import ProcessError
from oracle.evaluate import LostRange
from scenarios.checker.change_verdict import CONTINUES, PinnedChange, judge_change, refusal
from scenarios.checker.expectations import check
from scenarios.checker.query_results import compare
from scenarios.engine.scenario import Scenario
from scenarios.engine.spark_envs import locked_spark_version, spark_python
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.errors import ScenarioError
from scenarios.run.corpus import Manifest, keep
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import error_in_text
from spark_app.lines.query_lines import QueryChecked
from spark_app.lines.query_rows import BATCH_COLUMN, read_rows, read_written
from spark_app.settings import SparkAppSettings

__all__ = [
    "ChangeRun",
    "before_restart",
    "change_scenario",
    "judge_new_rows",
    "judged_rows",
    "messages_option",
    "module_settings",
    "pinned_changes",
    "record_verdict",
    "restart_new",
]

# The settings Spark pins in the checkpoint's offset log, as NEW's SETTINGS name them.
_PINNED = {
    "shuffle_partitions": "spark.sql.shuffle.partitions",
    "state_store": "spark.sql.streaming.stateStore.providerClass",
}


def messages_option(text: str) -> int:
    """`--messages N`: how many messages OLD commits before its stop, one at least."""
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give a whole number of messages, 1 or more")
    return count


def module_settings(path: Path) -> dict[str, Any]:
    """A query module's `SETTINGS` (read from its source, not run): app settings by name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "SETTINGS" for t in node.targets
        ):
            try:
                found = dict(ast.literal_eval(node.value))
            except ValueError as error:
                raise ScenarioError(
                    f'{path}: SETTINGS must be a dict written out, e.g. {{"shuffle_partitions": 4}}'
                ) from error
    known = {f.name for f in fields(SparkAppSettings)}
    unknown = sorted(set(found) - known)
    if unknown:
        raise ScenarioError(
            f"{path}: SETTINGS names {', '.join(unknown)}, which the app does not know; "
            f"use its settings' names, e.g. shuffle_partitions, max_offsets_per_trigger"
        )
    return found


@dataclass(frozen=True)
class ChangeRun:
    """One change to check: the two modules as Spark checked them, and where each runs."""

    old: QueryChecked
    new: QueryChecked
    from_line: str = ""
    to_line: str = ""
    messages: int = 20
    # App settings both starts take over the modules' own SETTINGS: compat's variant (the
    # state store, the checkpoint format), so OLD and NEW write and read the same kind.
    settings: tuple[tuple[str, Any], ...] = ()
    # compat --keep: the corpus to keep OLD's checkpoint in, and the cell's name there.
    keep: Path | None = None
    cell: str = ""


def change_scenario(run: ChangeRun) -> Scenario:
    old, new = Path(run.old.path).name, Path(run.new.path).name
    lines = f" ({run.from_line or 'the locked line'} to {run.to_line or 'the locked line'})"
    return Scenario(
        name="check-change",
        title=f"{old} to {new} on one checkpoint{lines}",
        summary="OLD runs on a fresh checkpoint and stops; NEW restarts on it; the oracle "
        "judges NEW's rows against NEW evaluated over every record sent.",
        origin="check-change",
        about=f"will a checkpoint written by {old} take {new}?",
        run=partial(_story, run=run),
        takes_query=True,
    )


def _story(stage: Stage, run: ChangeRun) -> None:
    old_path, new_path = Path(run.old.path), Path(run.new.path)
    stage.fact(
        "change",
        {
            "old": str(old_path),
            "new": str(new_path),
            "from": run.from_line,
            "to": run.to_line,
            "settings": dict(run.settings),
        },
    )
    with stage.step(
        Step(
            "Start Kafka and the producer",
            happens="a topic that keeps everything; the producer sends a message a second",
            watch="the producer's lines below",
            why="both versions read the same topic; only the checkpoint says where NEW resumes",
            production="a deploy restarts the new code on the old checkpoint, over a topic "
            "that still holds what it has not read",
            question="Will anything of the topic be gone before NEW starts?",
            answer="No: the topic keeps everything for the whole check.",
            giveaway=("keeps everything",),
            checks=(),
        )
    ):
        stage.kafka.start()
    with stage.step(
        Step(
            f"Run OLD ({old_path.name}) on a fresh checkpoint, then stop it",
            happens=f"OLD reads {run.messages} messages, commits them, and stops on SIGTERM, "
            "as a deploy stops the running version",
            watch="the app's batch lines below, then its stop line",
            why="the checkpoint now holds OLD's offsets, its state and the settings Spark pins",
            production="stop the old version cleanly before the new one starts: two writers "
            "on one checkpoint is another failure (checkpoint-moved-and-shared)",
            question="Which settings will the checkpoint pin for every later version?",
            answer="Spark writes them into each batch's offsets file (shown in the next step); "
            "a later version cannot change them.",
            giveaway=("offsets file",),
            checks=(),
        )
    ):
        stage.app.start(query=old_path, python=_python(run.from_line), **_settings(old_path, run))
        stage.output.wait_until_read(run.messages)
        stage.app.stop()
    restart_at = stage.app.committed_offset() or 0
    kept = _kept_checkpoint(stage, run)
    old_batches = max((r[BATCH_COLUMN] for r in read_written(_query_output(stage))), default=-1)
    pinned = _pinned_changes(stage, new_path, run)
    with stage.step(
        Step(
            f"Restart NEW ({new_path.name}) on the same checkpoint",
            happens="NEW starts on OLD's checkpoint and runs, or Spark refuses it",
            watch="the app's lines below: batch lines if it runs, one error line if not",
            why="Spark checks what it can of the checkpoint against NEW: the state's schema by "
            "its types and order, the source, the pinned settings; what it cannot check, it "
            "takes",
            production="run check-change in CI before a deploy: a refusal in CI costs nothing, "
            "a refusal at deploy time costs an outage",
            question="Will Spark take NEW on this checkpoint?",
            answer="The verdict below says, from this run.",
            giveaway=(),
            checks=(),
        )
    ):
        for change in pinned:
            stage.say(f"pinned: {change.words()}")
        refusal = restart_new(stage, new_path, run)
        if refusal:
            verdict = judge_change(continued=False, refusal=refusal, pinned_changes=pinned)
            record_verdict(stage, verdict)
            _keep(stage, run, kept, restart_at)
            return
    with stage.step(
        Step(
            "Hold NEW's rows against NEW over everything sent",
            happens="the producer stops, NEW catches up and stops; the oracle evaluates NEW "
            "over every record sent, and NEW's rows since the restart are held against it",
            watch="the oracle's lines in the narration",
            why="a change the checkpoint takes may still change what the results mean: old "
            "state read under a new meaning, a key renamed, a setting the checkpoint kept",
            production="hold a changed query's results against a recomputation, not only its "
            "restart: a silent change is the worst kind",
            question="Will NEW's rows be what NEW computes over everything sent?",
            answer="The verdict below says, from this run.",
            giveaway=(),
            checks=(),
        )
    ):
        total = stage.stop_producer_and_drain()
        stage.app.stop()
        after, lost = judged_rows(run, old_batches, before_restart(stage, restart_at))
        comparison = judge_new_rows(stage, run.new, after, lost)
        verdict = judge_change(
            continued=True,
            comparison=comparison,
            old_key=run.old.key,
            new_key=run.new.key,
            pinned_changes=pinned,
        )
        stage.fact("messages_sent", total)
        record_verdict(stage, verdict)
        _keep(stage, run, kept, restart_at)


def _python(line: str) -> str | None:
    return spark_python(line) if line else None


def _query_output(stage: Stage) -> Path:
    return SparkAppSettings(log_dir=stage.folders.log).query_output


def _settings(module: Path, run: ChangeRun) -> dict[str, Any]:
    """The app settings a start takes: the module's SETTINGS, then the run's own over them."""
    return {**module_settings(module), **dict(run.settings)}


def _kept_checkpoint(stage: Stage, run: ChangeRun) -> Path | None:
    """OLD's checkpoint and rows as it stopped, copied before NEW touches them (compat --keep
    only): `kept/checkpoint` and `kept/rows` (missing when OLD wrote none)."""
    if run.keep is None:
        return None
    kept = stage.folders.root / "kept"
    shutil.copytree(stage.app.checkpoint_view(), kept / "checkpoint")
    if _query_output(stage).is_dir():
        shutil.copytree(_query_output(stage), kept / "rows")
    return kept


def _keep(stage: Stage, run: ChangeRun, kept: Path | None, restart_at: int) -> None:
    """Write the cell into the corpus: OLD's checkpoint and rows, what went into Kafka, the
    manifest.
    Every record sent is kept, those after OLD's stop too: a restart from the corpus reads on
    past the checkpoint's last commit, as NEW did here."""
    if run.keep is None or kept is None:
        return
    settings = _settings(Path(run.old.path), run)
    manifest = Manifest(
        cell=run.cell or "check-change",
        line=run.from_line or locked_spark_version(),
        query=run.old.path,
        store=str(settings.get("state_store", "hdfs")),
        format=int(settings.get("checkpoint_format", 1)),
        committed_offset=restart_at,
        settings=settings,
    )
    sent = read_sent_records(stage.folders.log / SENT_RECORDS_FILE, stage.kafka.topic)
    folder = keep(run.keep, manifest, kept / "checkpoint", sent, rows=kept / "rows")
    stage.say(f"kept OLD's checkpoint and rows, {len(sent)} records and the manifest in {folder}")


def _pinned_changes(stage: Stage, new: Path, run: ChangeRun) -> list[PinnedChange]:
    return pinned_changes(read_checkpoint(stage.folders.checkpoints).conf, _settings(new, run))


def pinned_changes(conf: dict[str, str], asked: dict[str, Any]) -> list[PinnedChange]:
    """The settings NEW asks for (`asked`, by the app's names) that differ from what the
    checkpoint's offset log pinned (`conf`, Spark's keys)."""
    changes = []
    for name, key in _PINNED.items():
        if name in asked and key in conf and not _same_setting(name, asked[name], conf[key]):
            changes.append(PinnedChange(name, conf[key], str(asked[name])))
    return changes


def _same_setting(name: str, asked: Any, pinned: str) -> bool:
    """The app's "rocksdb" names Spark's RocksDBStateStoreProvider (case apart); any other
    setting is the same only when equal (shuffle partitions 2 is not a pinned 20)."""
    if name == "state_store":
        return str(asked).lower() in pinned.lower()
    return str(asked) == pinned


def restart_new(stage: Stage, new: Path, run: ChangeRun, **options: Any) -> str:
    """Start NEW (with `options` to the app's settings besides); "" when it runs and commits,
    else its refusal in one line."""
    stage.app.start(query=new, python=_python(run.to_line), **_settings(new, run), **options)
    try:
        stage.output.wait_until_read(
            (stage.app.committed_offset() or 0) + 3, 3 * stage.timings.spark_start_timeout_sec
        )
    except ProcessError:
        output = stage.app.output()
        error = error_in_text(output)
        said = str(error) if error is not None else stage.app.last_words()
        return refusal(said, output)
    return ""


def before_restart(stage: Stage, restart_at: int, topic: str = "") -> tuple[str, ...]:
    """In append mode NEW's rows come from what NEW read: the records before its restart are
    left out of its evaluation, as if it had not seen them (one partition: the counter's)."""
    return (LostRange(topic or stage.kafka.topic, 0, 0, restart_at).text(),) if restart_at else ()


def judged_rows(
    run: ChangeRun, old_batches: int, before: tuple[str, ...], old_rows: bool = True
) -> tuple[int, tuple[str, ...]]:
    """Which rows the oracle judges after NEW ran: the rows of the batches after the first of
    the pair, and the ranges of records the oracle's evaluation leaves out. `old_batches` is
    OLD's last batch, `before` the records read before the restart (before_restart), `old_rows`
    whether OLD's rows are in the query's output (a corpus kept before they were: not).

    The same query on both sides (compat, a corpus cell) in append mode: every row is final, so
    OLD's rows and NEW's together are the query over everything sent, all held to it. Held to
    NEW's rows alone, a key whose records straddle the restart reads as missing: OLD wrote it.
    A changed query in append mode: NEW's rows, against NEW over what NEW read. In update or
    complete mode: NEW's rows since the restart, over everything sent (judge_new_rows keeps
    only the keys NEW wrote)."""
    if run.new.mode != "append":
        return old_batches, ()
    if old_rows and run.old.path == run.new.path:
        return -1, ()
    return old_batches, before


def judge_new_rows(
    stage: Stage,
    new: QueryChecked,
    old_batches: int,
    lost: tuple[str, ...],
    records: Path | None = None,
    topic: str | None = None,
) -> Any:
    expected = read_rows(stage.output.evaluate(Path(new.path), lost, records, topic))
    written = [r for r in read_written(_query_output(stage)) if r[BATCH_COLUMN] > old_batches]
    if new.mode != "append":  # only the KEYs NEW wrote since its restart can be held to it
        keys = {tuple(r.get(c) for c in new.key) for r in written}
        expected = [r for r in expected if tuple(r.get(c) for c in new.key) in keys]
    return compare(
        expected, written, mode=new.mode, key=new.key, boundary_dependent=bool(new.depends_on)
    )


def record_verdict(stage: Stage, verdict: Any) -> None:
    stage.fact("change_verdict", {"kind": verdict.kind, "line": verdict.line()})
    stage.say(f"verdict: {verdict.line()}")
    stage.expect(
        check(
            "NEW continues on OLD's checkpoint and agrees with the oracle",
            verdict.kind == CONTINUES,
            CONTINUES,
            verdict.line(),
        )
    )
