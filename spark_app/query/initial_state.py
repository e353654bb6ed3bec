"""The count a new checkpoint starts from: another checkpoint's state, read by Spark.

Moving a job to a new checkpoint (another state store, applyInPandasWithState to
transformWithState, format 2 to format 1) loses its state unless the new query is seeded.
transformWithState takes an `initialState`, a grouped batch DataFrame, which Spark hands to
the processor's `handleInitialState` in the new query's batch 0 only (a restart of the new
checkpoint ignores it; a replayed batch 0 gets it again). The count is read from the old
checkpoint with the State Data Source, at its last committed batch, before the query starts,
and handed over as a one-row local DataFrame: the old folder is not read again by the query.

The state and the Kafka offsets must come from the same batch: the count after batch N pairs
with `--starting-offsets` set to offsets/N's end (what `SeedCount.batch` names), so the new
query counts the first message the old one did not.

Usage:
    seed = read_seed(spark, Path("old/checkpoints"))        # SeedCount(count=42, batch=41)
    grouped = initial_state(spark, seed)                    # for transformWithStateInPandas
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_data_source import count_in, statestore_options
from spark_app.errors import StateStoreOptionError
from spark_app.query.counter import GROUP_COLUMN

__all__ = ["SeedCount", "read_seed", "initial_state", "seed_line", "skipped_line"]


@dataclass(frozen=True)
class SeedCount:
    """The count an old checkpoint holds after its batch `batch`."""

    checkpoint: Path
    batch: int
    count: int


def read_seed(spark: Any, checkpoint: Path) -> SeedCount:
    """The count after the old checkpoint's last committed batch, read by Spark's State Data
    Source (`statestore` at that `batchId`, named explicitly so it is the batch we report)."""
    batch = read_checkpoint(checkpoint).last_committed_id
    if batch is None:
        raise StateStoreOptionError(
            f"--initial-state-from {checkpoint}: no committed batch "
            "there, so no state to start from"
        )
    # PySpark 4.2.0's State Data Source asks for the StateStoreCoordinator, which the
    # streaming query manager creates: touch it first (state_reader.reader_session does too).
    spark.streams  # noqa: B018
    rows = (
        spark.read.format("statestore")
        .options(**statestore_options(checkpoint))
        .option("batchId", batch)
        .load(str(checkpoint.resolve()))
        .collect()
    )
    counts = [count_in(row["value"].asDict(recursive=True)) for row in rows if row["value"]]
    if len(counts) != 1 or counts[0] is None:
        raise StateStoreOptionError(
            f"--initial-state-from {checkpoint}: expected one count in "
            f"its state at batch {batch}, found {counts}"
        )
    return SeedCount(checkpoint, batch, counts[0])


def initial_state(spark: Any, seed: SeedCount) -> Any:
    """The seed as transformWithState's initialState: the count's one group, grouped."""
    frame = spark.createDataFrame([(0, seed.count)], f"{GROUP_COLUMN} int, count bigint")
    return frame.groupBy(GROUP_COLUMN)


def seed_line(seed: SeedCount) -> str:
    """What the app prints, so a reader of its output sees where the count came from."""
    return (
        f"Initial state: count {seed.count} from {seed.checkpoint} after its batch "
        f"{seed.batch} (State Data Source); Spark applies it in this checkpoint's batch 0 only"
    )


def skipped_line(checkpoint: Path) -> str:
    """What the app prints when its own checkpoint has committed batches: no seed needed."""
    return (
        f"Initial state: not read from {checkpoint}; this checkpoint has committed batches "
        "and goes on from its own state (Spark applies an initial state in batch 0 only)"
    )
