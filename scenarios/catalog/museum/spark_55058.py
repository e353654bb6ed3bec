"""SPARK-55058: the checkpoint's `metadata` file is deleted between runs.

`metadata` holds only the query id. Up to Spark 4.1 a restart without it writes a new one and
goes on from the offsets and state it still has: nothing fails, but a sink that deduplicates on
(query id, batch id) sees a new query and writes its batches again. Spark 4.2 refuses the
restart instead (STREAMING_CHECKPOINT_MISSING_METADATA_FILE).

Usage: `python -m scenarios run known-bugs --exhibits SPARK-55058 --fast`
"""

from __future__ import annotations

from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, exhibit_step, restart_after
from scenarios.engine.stage import Stage
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "STEP", "run"]

BUG = bug_named("SPARK-55058")


STEP = exhibit_step(
    BUG,
    "delete the checkpoint's metadata file, start again",
    happens="the app runs on a new checkpoint until two batches are committed and stops; "
    '`metadata` ({"id": query id}) is deleted, offsets/, commits/ and state/ stay; the app '
    "starts again",
    watch=RESTART_WATCH,
    why="the query id is what ties the batches a sink saw to this query: a new id on the same "
    "offsets makes every batch look new to a sink keyed on (query id, batch id)",
    giveaway=(BUG.when_fixed, "new query id"),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        restart_after(stage, BUG, _delete_metadata)


def _delete_metadata(checkpoint: Path) -> str:
    (checkpoint / "metadata").unlink()
    return f"deleted {checkpoint / 'metadata'}"


EXHIBIT = Exhibit(BUG, run)
