"""The stateful part: a running count of all messages, kept in Spark's state store.

Every record joins one group (a constant key), and `applyInPandasWithState` hands that group's
rows of a batch to `running_count` together with the count stored after the previous batch.
Rows are numbered in (partition, offset) order, so a replayed batch gets exactly the same counts,
and the new total goes back into the state store, versioned with the batch in `state/`.

`--state-schema v2` is "the new version" of the state: the struct gains a field,
`last_update_ms` (when the count last moved). Spark pins the state schema in the checkpoint
(`state/<op>/_metadata/schema`) and refuses to run a v2 query on a v1 checkpoint; a new
checkpoint takes v2 without trouble (the upgrade scenario shows both).

`--counter transform-with-state` counts the same way with transformWithStateInPandas
(counter_tws.py); both number rows with `number_rows`, so their output logs are identical.

Usage: `counted = count_messages(records, state_schema="v1")`  # adds a `count` column: 1, 2, ...
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupState, GroupStateTimeout

from spark_app.checkpoint.state_schema import STATE_SCHEMAS

__all__ = [
    "count_messages",
    "running_count",
    "state_value",
    "number_rows",
    "message_texts",
    "OUTPUT_SCHEMA",
    "STATE_SCHEMAS",
    "GROUP_COLUMN",
]

GROUP_COLUMN = "stream"
OUTPUT_SCHEMA = "topic string, partition int, offset bigint, key string, value string, count bigint"
_COLUMNS = ["topic", "partition", "offset", "key", "value", "count"]


def state_value(total: int, version: str, now_ms: int) -> tuple[int, ...]:
    """The state tuple to store for `total`, in the layout of schema `version`."""
    return (total,) if version == "v1" else (total, now_ms)


def number_rows(batches: Iterator[pd.DataFrame], before: int) -> pd.DataFrame | None:
    """This batch's rows in (partition, offset) order, counted on from `before`; None when the
    batch is empty. Both counters number rows here, so they write the same output log."""
    frames = [frame for frame in batches if len(frame)]
    if not frames:
        return None
    rows = pd.concat(frames, ignore_index=True).sort_values(
        ["partition", "offset"], ignore_index=True
    )
    rows["count"] = range(before + 1, before + 1 + len(rows))
    return rows[_COLUMNS]


def running_count(
    key: tuple[Any, ...], batches: Iterator[pd.DataFrame], state: GroupState, version: str = "v1"
) -> Iterator[pd.DataFrame]:
    """Number this batch's rows after the stored count, then store the new total."""
    before = int(state.get[0]) if state.exists else 0
    rows = number_rows(batches, before)
    if rows is None:
        return
    state.update(state_value(before + len(rows), version, int(time.time() * 1000)))
    yield rows


def message_texts(records: DataFrame) -> DataFrame:
    """The records' columns the counters need, key and value as text, in the one group."""
    # Kafka hands bytes; like every real job, the query says how to read them.
    texts = records.selectExpr(
        "topic",
        "partition",
        "offset",
        "CAST(key AS STRING) AS key",
        "CAST(value AS STRING) AS value",
    )
    return texts.withColumn(GROUP_COLUMN, F.lit(0))


def count_messages(records: DataFrame, state_schema: str = "v1") -> DataFrame:
    """The records with their running count, as an update-mode stateful stream."""
    count = functools.partial(running_count, version=state_schema)
    return (
        message_texts(records)
        .groupBy(GROUP_COLUMN)
        .applyInPandasWithState(
            count, OUTPUT_SCHEMA, STATE_SCHEMAS[state_schema], "update", GroupStateTimeout.NoTimeout
        )
    )
