"""The running count on transformWithStateInPandas (`--counter transform-with-state`).

The same count as counter.py, with the successor of applyInPandasWithState: a
`StatefulProcessor` keeps the count in one value state variable, `count`, and numbers each
batch's rows exactly as `running_count` does, so the output log is the same line for line and
a replayed batch gets the same counts.

What changes is the checkpoint. Spark stores every state variable as a column family of one
RocksDB store (it refuses the HDFS store for this operator), writes operator metadata v2 per
batch (`state/<op>/_metadata/v2/<batch>`) and the variables' schemas under
`state/<op>/_stateSchema/`. The State Data Source reads the count with
`option("stateVarName", "count")`. A checkpoint written by one counter cannot be restarted by
the other: Spark compares the stateful operator with the one in the checkpoint.

PySpark 4.0 has it (`GroupedData.transformWithStateInPandas`); its Python workers talk to
Spark's state server in protobuf, hence the project's protobuf dependency.

`--initial-state-from` seeds a new checkpoint's count (handleInitialState, initial_state.py):
the move from applyInPandasWithState, whose state Spark cannot carry over, to this counter.

Usage: `counted = count_messages_tws(records, state_schema="v1")`  # adds `count`: 1, 2, ...
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql.group import GroupedData
from pyspark.sql.streaming.stateful_processor import (StatefulProcessor, StatefulProcessorHandle,
                                                      TimerValues)

from spark_app.checkpoint.state_schema import STATE_SCHEMAS
from spark_app.counter import GROUP_COLUMN, OUTPUT_SCHEMA, message_texts, number_rows, state_value

__all__ = ["RunningCountProcessor", "count_messages_tws", "STATE_VARIABLE"]

# The value state's name: the State Data Source needs it (`stateVarName`) to read the count.
STATE_VARIABLE = "count"


class RunningCountProcessor(StatefulProcessor):
    """Numbers each batch's rows after the stored count, then stores the new total."""

    def __init__(self, state_schema: str = "v1") -> None:
        self.version = state_schema

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.count = handle.getValueState(STATE_VARIABLE, STATE_SCHEMAS[self.version])

    def handleInputRows(self, key: Any, rows: Iterator[pd.DataFrame],
                        timerValues: TimerValues) -> Iterator[pd.DataFrame]:
        before = int(self.count.get()[0]) if self.count.exists() else 0
        numbered = number_rows(rows, before)
        if numbered is None:
            return
        self.count.update(state_value(before + len(numbered), self.version,
                                      int(time.time() * 1000)))
        yield numbered

    def handleInitialState(self, key: Any, initialState: pd.DataFrame,
                           timerValues: TimerValues) -> None:
        """Batch 0 of a seeded checkpoint (`--initial-state-from`): the count the old
        checkpoint held becomes this one's, before the batch's rows are numbered."""
        seeded = int(initialState["count"].iloc[-1])
        self.count.update(state_value(seeded, self.version, int(time.time() * 1000)))

    def close(self) -> None:
        pass


def count_messages_tws(records: DataFrame, state_schema: str = "v1",
                       initial_state: GroupedData | None = None) -> DataFrame:
    """The records with their running count, as an update-mode transformWithState stream;
    `initial_state` (initial_state.py) seeds the count in a new checkpoint's batch 0."""
    return (message_texts(records).groupBy(GROUP_COLUMN)
            .transformWithStateInPandas(RunningCountProcessor(state_schema), OUTPUT_SCHEMA,
                                        "Update", "None", initialState=initial_state))
