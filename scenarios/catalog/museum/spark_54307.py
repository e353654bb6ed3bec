"""SPARK-54307: the checkpoint's `state/` folder is deleted between runs.

Offsets and commits say batch N was done, so the restart's first batch loads state version
N+1 from state/, which is gone. Before the change Spark fails on a state file it cannot read
(CANNOT_LOAD_STATE_STORE.CANNOT_READ_STREAMING_STATE_FILE); with it, the error names the
missing folder (STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY).

Usage: `python -m scenarios run known-bugs --exhibits SPARK-54307 --fast`
"""

from __future__ import annotations

import shutil
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, exhibit_step, restart_after
from scenarios.engine.stage import Stage
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "STEP", "run"]

BUG = bug_named("SPARK-54307")


STEP = exhibit_step(
    BUG,
    "delete the checkpoint's state/ folder, start again",
    happens="the app runs on a new checkpoint until two batches are committed and stops; state/ "
    "(the running count per key) is deleted, offsets/, commits/ and metadata stay; the app "
    "starts again",
    watch=RESTART_WATCH,
    why="a restart loads the state version the last commit names; the offsets say the batches "
    "before were done, so Spark cannot rebuild the state by reading them again",
    giveaway=(BUG.when_present, BUG.when_fixed),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        restart_after(stage, BUG, _delete_state)


def _delete_state(checkpoint: Path) -> str:
    shutil.rmtree(checkpoint / "state")
    return f"deleted {checkpoint / 'state'}"


EXHIBIT = Exhibit(BUG, run)
