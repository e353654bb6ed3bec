"""The exactly-once sink of a user's query: each batch's rows in a file of its own, named by the
batch id, written whole or not at all.

Spark runs a batch again after a crash with the same offsets and the same state, so with the
same rows; this sink writes batch N to `query-output/batch-N.jsonl` through a temporary file
renamed into place (runtime/atomic_file.py). A replay writes the same file again: the folder
holds each batch once, whatever happened (idempotent on the batch id, as Spark's guide asks of a
foreachBatch sink). The rows' format is spark_app/lines/query_rows.py's. A stop closes the gate
(graceful_stop.py), as for the counter: a batch that begins after it writes nothing.

Usage:
    sink = QuerySink(settings.query_output, OutputGate())
    result.writeStream.foreachBatch(sink)...
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from spark_app.lines.query_rows import batch_file, rows_text
from spark_app.query.graceful_stop import Gate
from spark_app.runtime.atomic_file import write_atomically

__all__ = ["QuerySink"]


class QuerySink:
    """The foreachBatch function of a query module: a batch's rows into its own file."""

    def __init__(self, folder: Path, gate: Gate) -> None:
        self.folder = folder
        self.gate = gate
        self.last_rows: int | None = None  # how many rows the last batch wrote

    def __call__(self, batch: Any, batch_id: int) -> None:
        self.gate.enter(batch_id)
        with warnings.catch_warnings():
            # On failure pyspark warns with the whole Java trace before raising the same error.
            warnings.simplefilter("ignore", UserWarning)
            frame = batch.toPandas()
        rows = frame.to_dict("records")
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomically(batch_file(self.folder, batch_id), rows_text(rows, batch_id))
        self.last_rows = len(rows)

    def count_of(self, batch_id: int) -> int | None:
        """The counter's running count after a batch: a query module has none."""
        return None

    def close(self) -> None:
        """Nothing held open: each batch's file is closed once written."""
