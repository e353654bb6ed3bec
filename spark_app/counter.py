"""The stateful part: a running count of all messages, kept in Spark's state store.

Every record joins one group (a constant key), and `applyInPandasWithState` hands that group's
rows of a batch to `running_count` together with the count stored after the previous batch.
Rows are numbered in (partition, offset) order, so a replayed batch gets exactly the same counts,
and the new total goes back into the state store, versioned with the batch in `state/`.

Usage: `counted = count_messages(records)`  # adds a `count` column: 1, 2, 3, ...
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

__all__ = ["count_messages", "running_count", "OUTPUT_SCHEMA", "STATE_SCHEMA", "GROUP_COLUMN"]

GROUP_COLUMN = "stream"
OUTPUT_SCHEMA = "topic string, partition int, offset bigint, key string, value string, count bigint"
# Changing this schema makes Spark refuse the existing checkpoint (the "upgrade" scenario).
STATE_SCHEMA = "count bigint"
_COLUMNS = ["topic", "partition", "offset", "key", "value", "count"]


def running_count(key: tuple[Any, ...], batches: Iterator[pd.DataFrame],
                  state: GroupState) -> Iterator[pd.DataFrame]:
    """Number this batch's rows after the stored count, then store the new total."""
    frames = [frame for frame in batches if len(frame)]
    if not frames:
        return
    rows = pd.concat(frames, ignore_index=True).sort_values(["partition", "offset"],
                                                            ignore_index=True)
    before = int(state.get[0]) if state.exists else 0
    rows["count"] = range(before + 1, before + 1 + len(rows))
    state.update((before + len(rows),))
    yield rows[_COLUMNS]


def count_messages(records: DataFrame) -> DataFrame:
    """The records with their running count, as an update-mode stateful stream."""
    return (records.withColumn(GROUP_COLUMN, F.lit(0))
            .groupBy(GROUP_COLUMN)
            .applyInPandasWithState(running_count, OUTPUT_SCHEMA, STATE_SCHEMA, "update",
                                    GroupStateTimeout.NoTimeout))
