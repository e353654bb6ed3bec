"""SPARK-53942: a restart asked for more shuffle partitions, from 4.1 on.

A checkpoint pins spark.sql.shuffle.partitions in every offsets file, and up to 4.0 a restart
puts the checkpoint's value back into the session for the whole query (query-changes shows a
restart asked for 4 that kept 1). apache/spark#52645 (4.1) splits the two: the state's number of
partitions goes into an internal setting of its own
(spark.sql.streaming.internal.stateStore.partitions, written by the first batch and restored on
every restart), while spark.sql.shuffle.partitions follows what the restart is started with and
drives the stateless shuffles only. The state stays where it was either way: only the
stateless part of the query can be tuned by a restart.

The app counts with its defaults (1 shuffle partition) until two batches are committed, stops
cleanly and starts again with `--shuffle-partitions 4`; once the restart has committed a batch it
planned itself, the exhibit reads that batch's offsets file (the two settings as the restart ran
them) and the state folder (the state's partitions).

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53942 --fast`
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import Restart, exhibit_step, restart_after
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import (
    RAN_ON,
    SHUFFLES_FOLLOWED,
    SHUFFLES_PINNED,
    bug_named,
)

__all__ = [
    "EXHIBIT",
    "STEP",
    "run",
    "FIRST_PARTITIONS",
    "ASKED_PARTITIONS",
    "SHUFFLE_KEY",
    "STATE_KEY",
    "shuffles_seen",
    "state_partitions",
]

BUG = bug_named("SPARK-53942")

FIRST_PARTITIONS = 1  # the app's default
ASKED_PARTITIONS = 4
SHUFFLE_KEY = "spark.sql.shuffle.partitions"
# 4.1's own setting for the state's partitions, beside the shuffle's in the offsets file.
STATE_KEY = "spark.sql.streaming.internal.stateStore.partitions"

STEP = exhibit_step(
    BUG,
    f"restart with --shuffle-partitions {ASKED_PARTITIONS} on a checkpoint of {FIRST_PARTITIONS}",
    happens=f"the app counts with {FIRST_PARTITIONS} shuffle partition until two batches are "
    f"committed and stops cleanly; it starts again with --shuffle-partitions "
    f"{ASKED_PARTITIONS} and runs until a batch it planned itself is committed; that batch's "
    "offsets file and the state folder are read",
    watch="the narration's line with the table's prediction for this Spark line, then the "
    f"line with the restart's offsets file: {SHUFFLE_KEY} and, from 4.1, {STATE_KEY}",
    why="the offsets file is where Spark writes the settings a batch ran with, and the state "
    "folder has a folder per state partition: together they say which shuffles followed the "
    "new number and where the state stayed",
    question=f"On the Spark line this run uses: does the restart run its shuffles at "
    f"{ASKED_PARTITIONS} partitions, or keep the checkpoint's {FIRST_PARTITIONS}, and the state?",
    giveaway=(STATE_KEY,),
    checks=(f"{BUG.ticket}: the state stayed in the checkpoint's partitions",),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        restart_after(
            stage,
            BUG,
            lambda checkpoint: (
                "nothing changed in the checkpoint; the restart asks for "
                f"{ASKED_PARTITIONS} shuffle partitions"
            ),
            options={"shuffle_partitions": FIRST_PARTITIONS},
            restart_options={"shuffle_partitions": ASKED_PARTITIONS},
            # A clean stop may leave a batch planned at the old number: the restart's own
            # batch is the one after it.
            restart_batches=2,
            observed=lambda restart: _read_offsets(stage, restart),
        )


def shuffles_seen(conf: Mapping[str, str]) -> str:
    """What a restart's offsets file says of its shuffles: the new number with the state kept
    apart, the old number for everything, or what it holds."""
    shuffle = conf.get(SHUFFLE_KEY)
    state = conf.get(STATE_KEY)
    if shuffle == str(ASKED_PARTITIONS) and state == str(FIRST_PARTITIONS):
        return SHUFFLES_FOLLOWED
    if shuffle == str(FIRST_PARTITIONS) and state in (None, str(FIRST_PARTITIONS)):
        return SHUFFLES_PINNED
    return f"{SHUFFLE_KEY} = {shuffle}, {STATE_KEY} = {state}"


def state_partitions(checkpoint: Path) -> list[int]:
    """The partitions the first stateful operator keeps state in (state/0/<partition>)."""
    operator = checkpoint / "state" / "0"
    if not operator.is_dir():
        return []
    return sorted(int(p.name) for p in operator.iterdir() if p.is_dir() and p.name.isdigit())


def _read_offsets(stage: Stage, restart: Restart) -> Restart:
    """A restart that went on: the settings its own newest committed batch ran with."""
    if restart.outcome != RAN_ON:
        return restart
    folder = stage.folders.checkpoints
    batch = read_checkpoint(folder).last_committed
    conf = dict(batch.conf) if batch else {}
    partitions = state_partitions(folder)
    said = (
        f"offsets/{batch.batch_id if batch else '?'}: {SHUFFLE_KEY} = "
        f"{conf.get(SHUFFLE_KEY)}, {STATE_KEY} = {conf.get(STATE_KEY, 'not written')}; "
        f"state partitions: {partitions}"
    )
    stage.say(said)
    stage.fact(
        f"{BUG.ticket} restart",
        {
            "batch": batch.batch_id if batch else None,
            SHUFFLE_KEY: conf.get(SHUFFLE_KEY),
            STATE_KEY: conf.get(STATE_KEY),
            "state_partitions": partitions,
        },
    )
    pinned = partitions == list(range(FIRST_PARTITIONS))
    stage.expect(
        check(
            f"{BUG.ticket}: the state stayed in the checkpoint's partitions",
            pinned,
            f"state/0/ holds partitions {list(range(FIRST_PARTITIONS))} only",
            f"state/0/ holds {partitions}",
        )
    )
    return Restart(
        shuffles_seen(conf),
        f"{restart.detail}; {said}",
        restart.query_id_before,
        restart.query_id_after,
    )


EXHIBIT = Exhibit(BUG, run)
