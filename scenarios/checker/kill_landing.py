"""Where a kill -9 of the Spark app landed, as pure data: the batch a restart runs again, the
values it reads (by the producer's partition rule) and those already in the output log, or, with
a user's query (no output log), whether the query's sink had written that batch's file and with
how many rows. Read from the files by scenarios/engine/faults/kills.py; chaos and parallelism
tell it.

Usage: `batch_values({P0: 4}, {P0: 7}, partitions=1)  # (5, 6, 7)`
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_app.partitioning import value_at
from spark_app.offsets import Offsets

__all__ = ["KillLanding", "batch_values"]


def batch_values(start: Offsets | None, end: Offsets, partitions: int) -> tuple[int, ...]:
    """The values a batch reads, by the producer's partition rule (kafka_app.partitioning)."""
    begin = start or {}
    return tuple(
        sorted(
            value_at(tp.partition, offset, partitions)
            for tp, stop in end.items()
            for offset in range(begin.get(tp, 0), stop)
        )
    )


@dataclass(frozen=True)
class KillLanding:
    """Where one kill -9 landed, read from the checkpoint and the output log after it."""

    aimed: str
    batch_id: int | None  # the batch a restart will run again; None if all were committed
    batch_values: tuple[int, ...]
    written: tuple[int, ...]  # those of the batch's values already in the output log
    seen_before: dict[int, int]  # how often each written value was in the log at the kill
    # With a user's query: read from its batch files, not the output log (which it has none of).
    query: bool = False
    # With a query: the rows of the batch's own file at the kill, None if the sink had not
    # written it (a file is written whole or not at all, so there is no middle of the output).
    file_rows: int | None = None

    @property
    def landed(self) -> str:
        if self.batch_id is None:
            return "between batches"
        if self.query:
            return (
                "mid-batch, before the output"
                if self.file_rows is None
                else "after the output, before the commit"
            )
        if not self.written:
            return "mid-batch, before the output"
        if len(self.written) < len(self.batch_values):
            return "in the middle of the output"
        return "after the output, before the commit"

    def describe(self) -> str:
        if self.batch_id is None:
            return "every batch was committed: the restart has nothing to replay"
        shown = _values_text(self.batch_values)
        if self.query:
            file = f"batch-{self.batch_id}'s file"
            return f"batch {self.batch_id} (values {shown}) has offsets but no commit; " + (
                f"the sink had not written {file} yet"
                if self.file_rows is None
                else f"the sink had written {file}, {self.file_rows} row(s)"
            )
        return (
            f"batch {self.batch_id} (values {shown}) has offsets but no commit; "
            f"{len(self.written)} of its {len(self.batch_values)} values were already "
            f"in the output log"
        )


def _values_text(values: tuple[int, ...]) -> str:
    if not values:
        return "none"
    return f"{values[0]}..{values[-1]}" if len(values) > 1 else str(values[0])
