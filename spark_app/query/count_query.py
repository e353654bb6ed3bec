"""The seed's counter as the query the run loop runs: each Kafka message with its running count.

The run loop (app.py) reads the records with the chosen Kafka source, hands them to `build`,
and writes what comes back in `OUTPUT_MODE` through the foreachBatch handler and its
exactly-once sink; it knows nothing else of the count. The count is applyInPandasWithState
(counter.py) or, with `--counter transform-with-state`, transformWithState (counter_tws.py),
whose initialState may come from another checkpoint (`--initial-state-from`, initial_state.py).

Usage:
    query = CountQuery(settings)
    counted = query.build(records)      # records: spark.readStream...load()
    counted.writeStream.outputMode(query.OUTPUT_MODE)...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.query.counter import count_messages
from spark_app.settings import SparkAppSettings

__all__ = ["CountQuery"]


@dataclass(frozen=True)
class CountQuery:
    """The records with their running count, by the operator --counter names."""

    settings: SparkAppSettings
    # Each batch emits the rows it counted, never the whole state again (the stateful operators'
    # mode; the sink writes every emitted row as one output line).
    OUTPUT_MODE: ClassVar[str] = "update"

    def build(self, records: Any) -> Any:
        """The streaming DataFrame the run loop writes: every message and its `count` column."""
        settings = self.settings
        if settings.counter == "transform-with-state":
            from spark_app.query.counter_tws import count_messages_tws  # imports protobuf's client

            return count_messages_tws(
                records,
                settings.state_schema,
                self._seeded(records),
                ttl_sec=settings.state_ttl_sec,
                idle_timer_sec=settings.idle_timer_sec,
            )
        return count_messages(records, settings.state_schema)

    def _seeded(self, records: Any) -> Any:
        """transformWithState's initialState from --initial-state-from, read before the query
        starts, until this checkpoint has committed its batch 0: Spark applies it in batch 0
        only (a replayed batch 0 needs it again) and accepts a restart without it, so once
        batch 0 is committed the old checkpoint is not read, and may be deleted."""
        settings = self.settings
        if settings.initial_state_from is None:
            return None
        from spark_app.query.initial_state import (
            initial_state,
            read_seed,
            seed_line,
            skipped_line,
        )

        if read_checkpoint(settings.checkpoint.folder).last_committed_id is not None:
            print(skipped_line(settings.initial_state_from), flush=True)
            return None

        spark = records.sparkSession
        seed = read_seed(spark, settings.initial_state_from)
        print(seed_line(seed), flush=True)
        return initial_state(spark, seed)
