"""SPARK-51682, a guard: format 2 with the offset log a batch ahead of the commit log.

On checkpoint format 2 each commit file carries the state's checkpoint ids (which version of
each partition's state the batch wrote), and a restart loads the state by them. Before
apache/spark#50480 (merged to master and branch-4.0 in April 2025, before 4.0.0) a restart read
the ids only when the offset log and the commit log ended at the same batch: with a batch
planned and not committed (what a crash between the two writes leaves) the replay had no ids
and its first batch failed. Every served line has the fix, so the exhibit passes where the bug
is absent and would catch its return.

The app counts on RocksDB with changelog checkpointing and checkpoint format 2 until two batches
are committed, stops cleanly, leaves the offset log exactly one batch ahead (it deletes the newest
commit file, unless the stop left a batch planned already, as after a crash before the commit)
and starts again.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-51682 --fast`
"""

from __future__ import annotations

from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, exhibit_step, restart_after
from scenarios.catalog.museum.spark_51988 import FORMAT_2
from scenarios.engine.stage import Stage
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "STEP", "run", "uncommit_newest"]

BUG = bug_named("SPARK-51682")

STEP = exhibit_step(
    BUG,
    "format 2, the offset log one batch ahead, start again",
    happens="the app counts on RocksDB with changelog checkpointing and checkpoint format 2 "
    "until two batches are committed and stops cleanly; the offset log is left one batch "
    "ahead of the commit log: the newest commits/<N> is deleted, unless the stop left a batch "
    "planned already (a batch planned, never committed, as a crash between the two writes "
    "leaves it), and the app starts again",
    watch=RESTART_WATCH,
    why="on format 2 the state's checkpoint ids are in the commit files: the replay of batch "
    "N needs those of N-1, which the fix reads whatever the offset log holds past them",
    giveaway=("the planned batch replays",),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        restart_after(stage, BUG, uncommit_newest, options=FORMAT_2)


def uncommit_newest(checkpoint: Path) -> str:
    """Leave the offset log exactly one batch ahead of the commit log: delete the newest commit
    file (and Hadoop's hidden checksum of it) where the offset log ends at it; a clean stop that
    left a batch planned has done it already. Never two ahead: Spark writes offsets/<N+1> only
    after commits/<N>, and a restart cannot make sense of a gap it never leaves itself (4.0.0
    failed on one, 29 Nov 2026, which is no bug of Spark's)."""
    info = read_checkpoint(checkpoint)
    if not info.commit_ids:
        raise CheckpointError(f"no commit in {checkpoint} to delete")
    newest = max(info.commit_ids)
    planned = max(info.offset_ids, default=newest)
    if planned > newest:
        return (
            f"nothing deleted: the clean stop left batch {planned} planned, never committed; "
            f"the offset log ends at {planned}, the commit log at {newest}"
        )
    (checkpoint / "commits" / str(newest)).unlink()
    (checkpoint / "commits" / f".{newest}.crc").unlink(missing_ok=True)
    return (
        f"deleted commits/{newest}: the offset log ends at batch {planned}, the commit log at "
        f"{newest - 1}"
    )


# A guard (no served line has the bug), on request: run all --fast ran 44 min 53 s on 29 Nov
# against its 40 with it in the museum's default set (docs/decisions.md); its e2e test is nightly.
EXHIBIT = Exhibit(BUG, run, on_request=True)
