"""SPARK-53103: offsets/ and commits/ are deleted but state/ is kept: a half-done reset.

Without offsets the restart is a new query (startingOffsets applies), yet state/ still holds
the old query's versions. Before the fix Spark starts it on that folder: the new query writes
versions the old files already have, and maintenance may delete old files under it. With the
fix (spark.sql.streaming.verifyCheckpointDirectoryEmptyOnStart) the restart is refused with
STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53103 --fast`
"""

from __future__ import annotations

import shutil
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, exhibit_step, restart_after
from scenarios.engine.stage import Stage
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "STEP", "run"]

BUG = bug_named("SPARK-53103")


STEP = exhibit_step(
    BUG,
    "delete offsets/ and commits/, keep state/, start again",
    happens="the app runs on a new checkpoint until two batches are committed and stops; "
    "offsets/ and commits/ are deleted, state/, sources/ and metadata stay: a reset someone "
    "did not finish; the app starts again",
    watch=RESTART_WATCH,
    why="with no offsets Spark starts a new query at batch 0, whose state versions are the "
    "numbers the old query's files already use",
    giveaway=(BUG.when_fixed,),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        restart_after(stage, BUG, _delete_logs)


def _delete_logs(checkpoint: Path) -> str:
    for name in ("offsets", "commits"):
        shutil.rmtree(checkpoint / name)
    return f"deleted {checkpoint / 'offsets'} and {checkpoint / 'commits'}; state/ kept"


EXHIBIT = Exhibit(BUG, run)
