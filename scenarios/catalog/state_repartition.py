"""State repartition: a stateful job moved from 1 to 4 state partitions, offline, the supported way.

A checkpoint pins `spark.sql.shuffle.partitions`, so a stateful job keeps the number of state
partitions it was started with (query-changes). PySpark 4.2.0 brought a way to change it:
`python -m spark_app repartition-state N` calls `spark._streamingCheckpointManager.repartition`,
private API of PySpark 4.2 (Spark Classic only), on the stopped query's checkpoint
(spark_app/query/state_repartition.py). The scenario runs the count on a RocksDB store and:

1. asks for it on the app's default store (HDFS) first, on a checkpoint of its own: refused;
2. asks while the app runs, then after a kill -9 left a batch planned: both refused;
3. runs the app once with `--trigger available-now`, which commits what was planned and stops;
4. repartitions to 4: one new batch with the state in 4 partitions and no input read;
5. starts the app again, on this line and then on Spark 4.0.0 (an older line without the
   command): every message still counted once.

As run (29 Nov 2026, 4.2.0 then 4.0.0, 102 and 153 s with --fast): 4.0.0 went on from the repartitioned
checkpoint with 4 state partitions, the count right; the notes had not said what an older line
does with it. Issue 57 guessed from the 4.2.0 jars that the counter's applyInPandasWithState might
be refused as UNSUPPORTED_STATEFUL_OPERATOR: 4.2.0 repartitioned it; what it refused was the
HDFS-backed store (UNSUPPORTED_PROVIDER), the app's default, which the issue did not name.
Spark's LAST_BATCH_FAILED names the batch as "batch ID N".
A run on a line before 4.2 repartitions with the project's own PySpark (its lock has 4.2), the
rest on the run's line.

Usage: `python -m scenarios run state-repartition --fast`
"""

from __future__ import annotations

import sys
from pathlib import Path

from scenarios.catalog import steps
from scenarios.checker.expectations import check, counted_once, equals
from scenarios.engine.scenario import Scenario
from scenarios.engine.spark_envs import spark_python
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint, read_offset_file
from spark_app.checkpoint.state_files import list_state_files
from spark_app.errors import (
    AppRunningError,
    RepartitionLastBatchFailedError,
    RepartitionUnavailableError,
    RepartitionUnsupportedProviderError,
    error_in_text,
)
from spark_app.query.state_repartition import unavailable_on
from spark_app.runtime.spark_version import installed_spark_version

__all__ = ["SCENARIO", "OLDER_LINE", "PARTITIONS", "run", "state_partitions"]

# The state's partitions after the change (the app starts with 1), and the older line the
# repartitioned checkpoint is started on last: the oldest whose connector is served whole.
PARTITIONS = 4
OLDER_LINE = "4.0.0"
ROCKSDB = {"state_store": "rocksdb"}
_SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions"
# Kills that land just after a commit leave nothing planned: tried again, up to this many.
_KILLS = 3

_START_KAFKA = steps.start_kafka(
    happens="a broker and the producer, one message a second; the topic keeps everything, so "
    "no offset the app needs ages out while it is down",
    why="the lesson is the state's layout on disk, not retention: every restart finds its "
    "offsets in Kafka",
    question="Which setting decides how many partitions a stateful query keeps its state in?",
    answer="spark.sql.shuffle.partitions, as the query's first batch found it: Spark writes it "
    "in that batch's offsets file and every later batch takes it from there, not from the "
    "session.",
    giveaway=("offsets file",),
    checks=(),
)

_ON_HDFS = Step(
    "Ask for 4 state partitions on the app's default store",
    happens="an app of its own counts on the HDFS-backed store (the app's default) with "
    "`--trigger available-now`: it reads what Kafka holds, commits and stops by itself; then "
    f"`repartition-state {PARTITIONS}` is run on its checkpoint",
    watch="the hdfs app's batch lines, then its stop line; then the narration's line with "
    "what the repartition said",
    why="Spark's repartition rewrites the state through the store's own reader and writer, "
    "and 4.2.0 does that for RocksDB only. It found out late: it had written the new batch's "
    "offsets file already, and left there, that unfinished batch stops every later start "
    "(STREAMING_UNFINISHED_REPARTITION_DETECTED) with no way to finish it; the app removes it",
    production="start a stateful job on RocksDB if its state may ever need other partitions: "
    "a checkpoint keeps the store that wrote it, so the HDFS one can only start over",
    question=f"Will Spark spread the count's state over {PARTITIONS} partitions on the "
    "HDFS-backed store, and what will the checkpoint look like after the attempt?",
    answer="No: Spark refuses the store (UNSUPPORTED_PROVIDER, in the app's one line), and the "
    "checkpoint is as it was before: the batch Spark had planned for the repartition was "
    "removed by the app.",
    giveaway=("unsupported_provider", "as it was before"),
    checks=(
        "refused on the HDFS-backed store: UNSUPPORTED_PROVIDER",
        "the refused repartition left the checkpoint as it was",
    ),
)

_FIRST_START = steps.first_start(
    title="Start the Spark app on RocksDB",
    happens="the counter starts a new query on the RocksDB state store with the app's "
    "spark.sql.shuffle.partitions, 1, from the topic's first offset",
    question="In how many partitions will this query keep its state?",
    answer="One: the first batch pinned spark.sql.shuffle.partitions = 1 in its offsets file, "
    "and the state lives in state/0/0 alone.",
    giveaway=("pinned spark.sql.shuffle.partitions = 1", "state/0/0 alone"),
    checks=("the state is in 1 partition",),
)

_WHILE_RUNNING = Step(
    f"Ask for {PARTITIONS} state partitions while the app runs",
    happens=f"`repartition-state {PARTITIONS}` is run on the checkpoint of the running app",
    watch="the app's batch lines go on; the narration's line with what the repartition said",
    why="Spark's repartition writes a batch of its own into the offset log and the state "
    "store; a running query writes its next batch there too. Spark does not check (its "
    "docstring warns of undefined behaviour or corruption); the app looks for an app on that "
    "checkpoint first, as its reset does",
    production="stop the job (and wait until it is down) before any offline operation on its "
    "checkpoint; a scheduler that restarts it on its own must be paused too",
    question="What will the command do to the running query's checkpoint?",
    answer="Nothing: it is refused in one line (APP_RUNNING) before Spark starts, and the app "
    "goes on counting.",
    giveaway=("app_running", "nothing:"),
    checks=("refused while the app runs: APP_RUNNING",),
)

_AFTER_KILL = Step(
    "kill -9 the app in the middle of a batch, then ask again",
    happens="the app is killed with kill -9 while a batch is planned and not yet committed; "
    f"then `repartition-state {PARTITIONS}` is run on its checkpoint",
    watch="the app's batch lines stop mid-stream with no last words; then the narration's "
    "line with what the repartition said",
    why="Spark repartitions the state the last committed batch left. A batch that was planned "
    "and never committed would be replayed on the next start, under a layout it was not "
    "planned with, so Spark refuses until it is finished",
    production="a job that died needs one clean run before the repartition: a run with "
    "Trigger.AvailableNow finishes what was planned and stops by itself",
    question="With a planned batch that never committed, will Spark repartition the state?",
    answer="No: LAST_BATCH_FAILED, in the app's one line with the way out (one run with "
    "--trigger available-now); the checkpoint is left as it was.",
    giveaway=("last_batch_failed",),
    checks=(
        "refused after the kill -9: LAST_BATCH_FAILED",
        "the refused repartition left the checkpoint as it was",
    ),
)

_AVAILABLE_NOW = Step(
    "Run the app once with --trigger available-now",
    happens="the app starts on the checkpoint with Trigger.AvailableNow: it replays the batch "
    "the kill left planned, reads what Kafka holds at its start, and stops by itself",
    watch="the app's batch lines, the first one the replayed batch; then its stop line",
    why="AvailableNow plans its batches up to the offsets it found at its start and ends the "
    "query when they are committed: the one trigger that ends on a committed batch without a "
    "stop from outside",
    production="make the run before an offline operation part of the runbook: a stop from "
    "outside may leave the next batch planned",
    question="How will this run end, and what will its last batch be?",
    answer="It stops by itself with exit code 0, and its last batch is committed: nothing is "
    "left planned.",
    giveaway=("stops by itself with exit code 0",),
    checks=("available-now stopped by itself, its last batch committed",),
)

_REPARTITION = Step(
    f"Repartition the state to {PARTITIONS} partitions",
    happens=f"`repartition-state {PARTITIONS}` runs on the stopped query's checkpoint: Spark "
    "reads the state the last batch left and writes it again, spread over "
    f"{PARTITIONS} partitions",
    watch="the narration's line with what the repartition said (the app is down)",
    why="the repartition is a batch of its own: it reuses the last batch's offsets (no input), "
    "writes the state under a new version in every new partition, and commits; the next "
    "start sees a committed batch and plans the one after",
    production="private API in PySpark 4.2 (spark._streamingCheckpointManager), Spark Classic "
    "only: try it on a copy of the checkpoint first, keep the copy until the job has run on",
    question="What will the new batch read from Kafka, and where will the state be after it?",
    answer="Nothing: the batch ends at the same offsets as the one before it, with "
    f"spark.sql.shuffle.partitions = {PARTITIONS} in its conf, and the state is in "
    f"{PARTITIONS} partition folders, each with that batch's version.",
    giveaway=("same offsets as the one before",),
    checks=(
        "repartition-state exits 0",
        "the repartition batch read no input",
        f"the state is in {PARTITIONS} partitions",
    ),
)

_RESTART = Step(
    "Start the app again",
    happens="the app starts on the repartitioned checkpoint with its usual options (its own "
    "spark.sql.shuffle.partitions is still 1) and catches up with the producer",
    watch="the app's batch lines: the first one starts where the last committed batch ended, "
    "the count going on",
    why="the offset log's last batch wins over the session, as for every pinned setting: the "
    "repartition batch carries the new number, and every later batch copies it",
    production="nothing changes in the job's code or its submit options: the checkpoint "
    "carries the new number",
    question="In how many partitions will the restarted query keep its state, and will any "
    "message be missing or counted twice?",
    answer=f"{PARTITIONS}, though the app asks for 1: its batches carry the repartition's "
    "number; every message is counted once.",
    giveaway=("though the app asks for 1",),
    checks=("caught up exactly once", f"its batches keep {PARTITIONS} state partitions"),
)

_OLDER_ASKED = Step(
    f"Stop the app; ask Spark {OLDER_LINE} to repartition",
    happens=f"the app is stopped; `repartition-state 2` is run with PySpark {OLDER_LINE}",
    watch="the app's stop line; then the narration's line with what the command said",
    why="the call came with PySpark 4.2.0: an older PySpark has no such method, so the app "
    "checks the line before it starts Spark",
    production="run offline operations with the newest PySpark your checkpoint allows; the "
    "job itself may stay on its line",
    question=f"What will PySpark {OLDER_LINE} do when asked to repartition?",
    answer="Refuse in one line (STATE_REPARTITION_UNAVAILABLE) naming the lines that have it, "
    "4.2 and 4.3, before any Spark starts.",
    giveaway=("state_repartition_unavailable",),
    checks=(f"refused on {OLDER_LINE}: STATE_REPARTITION_UNAVAILABLE",),
)

_ON_OLDER = Step(
    f"Start the app on Spark {OLDER_LINE}",
    happens=f"the app starts on the repartitioned checkpoint with PySpark {OLDER_LINE}, in its "
    "own environment, and catches up",
    watch="the app's batch lines on the older Spark, the count going on",
    why="the repartition batch is an ordinary batch on disk: a v1 offsets file whose conf "
    "names 4 partitions, a commit, and state versions a RocksDB store reads; nothing in it "
    "marks it as a repartition that an older line would have to understand",
    production="a rollback after a repartition keeps the new number of partitions; to go "
    "back to the old number, repartition again (with 4.2) before the rollback",
    question=f"Will Spark {OLDER_LINE}, which has no repartition, go on from the repartitioned "
    "checkpoint, and in how many partitions?",
    answer=f"As run: it goes on, in {PARTITIONS} partitions, every message counted once.",
    giveaway=(f"it goes on, in {PARTITIONS}",),
    checks=(
        f"{OLDER_LINE} went on from the repartitioned checkpoint",
        "caught up exactly once",
        f"its batches keep {PARTITIONS} state partitions",
    ),
)


def run(stage: Stage) -> None:
    with stage.step(_START_KAFKA):
        stage.kafka.start()
    repartition_python = _repartition_python(stage)
    with stage.step(_ON_HDFS):
        _refused_on_hdfs(stage, repartition_python)
    with stage.step(_FIRST_START):
        stage.app.start(**ROCKSDB)
        stage.output.wait_for_value(stage.timings.run_for_messages)
        # The output is written before the batch's commit: wait for the commit too.
        stage.app.wait_while_up(
            lambda: _committed_after(stage.folders.checkpoints, -1), "a committed batch"
        )
        info = read_checkpoint(stage.folders.checkpoints)
        _expect_partitions(stage, "the state is in 1 partition", info, 1)
    with stage.step(_WHILE_RUNNING):
        code, said = _repartition(stage, stage.app, repartition_python)
        _expect_refusal(
            stage, "refused while the app runs: APP_RUNNING", code, said, AppRunningError
        )
    with stage.step(_AFTER_KILL):
        planned = _kill_with_a_batch_planned(stage)
        before = _layout(stage.folders.checkpoints)
        code, said = _repartition(stage, stage.app, repartition_python)
        _expect_refusal(
            stage,
            "refused after the kill -9: LAST_BATCH_FAILED",
            code,
            said,
            RepartitionLastBatchFailedError,
            f"batch ID {planned}",
        )
        _expect_as_it_was(stage, before, _layout(stage.folders.checkpoints))
    with stage.step(_AVAILABLE_NOW):
        stage.app.start(**ROCKSDB, trigger="available-now")
        code = stage.app.wait_exit(stage.timings.spark_start_timeout_sec * 3)
        left = read_checkpoint(stage.folders.checkpoints)
        stage.expect(
            check(
                "available-now stopped by itself, its last batch committed",
                code == 0 and left.pending is None and left.last_committed is not None,
                "exit code 0, no batch planned without a commit",
                f"exit code {code}, last committed batch {left.last_committed_id}, "
                f"planned {left.pending_id}",
            )
        )
    with stage.step(_REPARTITION):
        _repartition_to_4(stage, repartition_python, left)
    with stage.step(_RESTART):
        stage.app.start(**ROCKSDB)
        _caught_up(stage, stage.app)
        _expect_kept(stage)
    with stage.step(_OLDER_ASKED):
        stage.app.stop()
        older = spark_python(OLDER_LINE, stage.say)
        code, said = _repartition(stage, stage.app, older, partitions=2)
        _expect_refusal(
            stage,
            f"refused on {OLDER_LINE}: STATE_REPARTITION_UNAVAILABLE",
            code,
            said,
            RepartitionUnavailableError,
            "4.2 and 4.3",
        )
    with stage.step(_ON_OLDER):
        last = read_checkpoint(stage.folders.checkpoints).last_committed_id or 0
        stage.app.start(**ROCKSDB, python=older)
        went_on = stage.app.wait_while_up(
            lambda: _committed_after(stage.folders.checkpoints, last),
            f"a batch committed by Spark {OLDER_LINE}",
        )
        stage.expect(
            check(
                f"{OLDER_LINE} went on from the repartitioned checkpoint",
                went_on > last,
                f"a batch after {last} committed",
                f"batch {went_on} committed",
            )
        )
        _caught_up(stage, stage.app)
        _expect_kept(stage)
    with stage.step(
        steps.finish(
            question="Across two lines, a repartition and a kill -9, how many values will be "
            "missing from the output log, or written twice?",
            giveaway=("none:", "every value 1..n is there"),
        )
    ):
        stage.finish_exactly_once()


def _repartition_python(stage: Stage) -> str:
    """The interpreter the repartition runs on: the run's own PySpark, or the project's (its
    lock has 4.2) on a line without the command."""
    version = stage.settings.spark_version or installed_spark_version()
    if not unavailable_on(version):
        return stage.settings.spark_python or sys.executable
    stage.say(
        f"Spark {version} has no offline repartition: the repartitions run with the "
        f"project's own PySpark {installed_spark_version()}, the app on {version}"
    )
    return sys.executable


def _repartition(
    stage: Stage, app: AppPart, python: str, partitions: int = PARTITIONS
) -> tuple[int, str]:
    """`repartition-state N` on `app`'s checkpoint; its exit code and its last line, said."""
    code, output = app.repartition_state(partitions, python=python)
    last = next((line for line in reversed(output.splitlines()) if line.strip()), "")
    stage.say(f"repartition-state {partitions} (exit {code}): {last[:400]}")
    return code, last


def _expect_refusal(
    stage: Stage,
    name: str,
    code: int,
    said: str,
    error: type[Exception],
    naming: str = "",
) -> None:
    found = error_in_text(said)
    stage.expect(
        check(
            name,
            code == 1 and type(found) is error and naming in said,
            f"exit code 1, the app's line {getattr(error, 'token', error.__name__)}"
            + (f" naming {naming}" if naming else ""),
            f"exit code {code}: {said[:200]}",
        )
    )


def _refused_on_hdfs(stage: Stage, python: str) -> None:
    hdfs = stage.app.beside("hdfs", narrated=True)
    hdfs.start(state_store="hdfs", trigger="available-now")
    code = hdfs.wait_exit(stage.timings.spark_start_timeout_sec * 3)
    if code != 0:
        raise StepFailed(f"the hdfs app's available-now run exited with code {code}")
    before = _layout(hdfs.folders.checkpoints)
    code, said = _repartition(stage, hdfs, python)
    _expect_refusal(
        stage,
        "refused on the HDFS-backed store: UNSUPPORTED_PROVIDER",
        code,
        said,
        RepartitionUnsupportedProviderError,
    )
    _expect_as_it_was(stage, before, _layout(hdfs.folders.checkpoints))


def _layout(checkpoint: Path) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The offset log's and the commit log's batches: what a repartition would add to."""
    info = read_checkpoint(checkpoint)
    return info.offset_ids, info.commit_ids


def _expect_as_it_was(
    stage: Stage,
    before: tuple[tuple[int, ...], tuple[int, ...]],
    after: tuple[tuple[int, ...], tuple[int, ...]],
) -> None:
    stage.expect(
        check(
            "the refused repartition left the checkpoint as it was",
            before == after,
            f"offsets {_ids(before[0])}, commits {_ids(before[1])}",
            f"offsets {_ids(after[0])}, commits {_ids(after[1])}",
        )
    )


def _ids(ids: tuple[int, ...]) -> str:
    return f"{ids[0]}..{ids[-1]}" if ids else "none"


def _kill_with_a_batch_planned(stage: Stage) -> int:
    """kill -9 while a batch is planned and not committed; that batch. A kill that lands just
    after the commit leaves nothing planned: the app is started again and killed again."""
    folder = stage.folders.checkpoints
    for _ in range(_KILLS):
        stage.app.wait_while_up(
            lambda: _planned(folder), "a batch planned and not yet committed", poll=0.05
        )
        stage.app.kill()
        planned = _planned(folder)
        if planned is not None:
            stage.say(f"killed with batch {planned} planned, not committed")
            return planned
        stage.say("the batch committed before the kill landed: start again, kill again")
        stage.app.start(**ROCKSDB)
        stage.output.wait_for_more(1)
    raise StepFailed(f"{_KILLS} kills -9 each landed after a commit: nothing left planned")


def _planned(folder: Path) -> int | None:
    try:
        return read_checkpoint(folder).pending_id
    except (OSError, ValueError):  # a file caught while the app writes it
        return None


def _repartition_to_4(stage: Stage, python: str, left: CheckpointInfo) -> None:
    code, said = _repartition(stage, stage.app, python)
    stage.expect(equals("repartition-state exits 0", code, 0, lambda c: f"exit code {c}: {said}"))
    after = read_checkpoint(stage.folders.checkpoints)
    new, old = after.last_committed, left.last_committed
    read_nothing = (
        new is not None
        and old is not None
        and new.batch_id == old.batch_id + 1
        and new.end_total == old.end_total
    )
    stage.expect(
        check(
            "the repartition batch read no input",
            read_nothing,
            f"batch {(old.batch_id + 1) if old else '?'} committed, ending at offset "
            f"{old.end_total if old else '?'} as the batch before",
            f"batch {new.batch_id if new else None} ending at {new.end_total if new else None}",
        )
    )
    _expect_partitions(stage, f"the state is in {PARTITIONS} partitions", after, PARTITIONS)


def _expect_partitions(stage: Stage, name: str, info: CheckpointInfo, wanted: int) -> None:
    """The last committed batch's conf and the partition folders holding its state version."""
    batch = info.last_committed
    if batch is None:
        raise StepFailed(f"no committed batch in {info.path}")
    conf, holding = state_partitions(info.path, batch.batch_id)
    stage.fact(f"state partitions after batch {batch.batch_id}", holding)
    stage.expect(
        check(
            name,
            conf == str(wanted) and holding == list(range(wanted)),
            f"{_SHUFFLE_PARTITIONS} = {wanted}; partitions 0..{wanted - 1} each hold version "
            f"{batch.batch_id + 1}",
            f"{_SHUFFLE_PARTITIONS} = {conf}; partitions {holding} hold it",
        )
    )


def state_partitions(checkpoint: Path, batch_id: int) -> tuple[str | None, list[int]]:
    """Batch `batch_id`'s spark.sql.shuffle.partitions (its offsets file's conf) and the state
    partitions of operator 0 whose folder holds the state version it wrote (batch + 1)."""
    conf = read_offset_file(checkpoint / "offsets" / str(batch_id)).conf.get(_SHUFFLE_PARTITIONS)
    operator = checkpoint / "state" / "0"
    holding = sorted(
        int(folder.name)
        for folder in (operator.iterdir() if operator.is_dir() else ())
        if folder.name.isdigit()
        and any(f.version == batch_id + 1 for f in list_state_files(folder))
    )
    return conf, holding


def _committed_after(folder: Path, batch_id: int) -> int | None:
    try:
        last = read_checkpoint(folder).last_committed_id
    except (OSError, ValueError):
        return None
    return last if last is not None and last > batch_id else None


def _caught_up(stage: Stage, app: AppPart) -> None:
    """The restarted app has read what the producer sent; every message once (the counter)."""
    latest = stage.kafka.window().latest
    report = stage.output.wait_for_value(latest)
    if stage.query is not None:  # what its rows hold, the oracle says at the end
        return
    stage.expect(counted_once("caught up exactly once", report))


def _expect_kept(stage: Stage) -> None:
    info = read_checkpoint(stage.folders.checkpoints)
    _expect_partitions(stage, f"its batches keep {PARTITIONS} state partitions", info, PARTITIONS)


SCENARIO = Scenario(
    name="state-repartition",
    title="a stateful job moved from 1 to 4 state partitions offline; an older line goes on",
    summary="The count on RocksDB is repartitioned from 1 to 4 state partitions with PySpark "
    "4.2's offline repartition (python -m spark_app repartition-state 4): refused on the "
    "HDFS-backed store, while the app runs and after a kill -9 left a batch planned; done "
    "after one run with --trigger available-now, as one batch that reads no input; the "
    "restarted job, and Spark 4.0.0 after it, keep 4 partitions and count every message once.",
    origin="Spark 4.2's offline state repartition",
    about="a stateful job whose number of state partitions, pinned by its checkpoint, has to "
    "change",
    run=run,
    # Not yet: with --query its catch-up waited on the counter's output log, which a query does
    # not write; no run of a user's query through the repartition has been made.
    without_query="it repartitions the counter's RocksDB state; a user's query through the "
    "repartition is not run yet",
    takes="about 3 min: 8 Spark starts, three of them the repartition command's, one on "
    "Spark 4.0.0 (whose environment a machine's first run makes)",
)
