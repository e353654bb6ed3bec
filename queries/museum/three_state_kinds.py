"""A transformWithState processor with a value, a list and a map state: the museum's SPARK-53069
exhibit.

SPARK-53069 (apache/spark#51790): RocksDB keeps every state variable of transformWithState as a
virtual column family of one store and counts each family's keys for the query progress's
`numRowsTotal`. A restart with changelog checkpointing replays the changelogs on load, and the
replay counted every key under the default family instead of the key's own, so the counts after
a restart were wrong. Spark's test uses the three kinds of state variable across restarts; this
module does the same with the playground's records (one group for all of them).

Every batch touches the same state rows: the value state `count` (the running count), the list
state `values` (the batch's values appended: the list grows, its row stays one) and the map
state `marks` with three fixed keys (first, last, size of the batch). So the state holds the
same number of rows after every batch, and a restart that counts them otherwise says so. Each
batch also registers a processing-time timer an hour ahead (it never fires while the exhibit
runs): timers are kept in internal column families, which numRowsTotal leaves out, so every
batch adds internal keys a replay can count under the wrong family.

Result: group string, count bigint, timers bigint (the timers registered so far).
State (transformWithStateInPandas, RocksDB only, ProcessingTime): value `count`, list `values`,
map `marks`, and the timers.

Usage: `python -m spark_app --query queries/museum/three_state_kinds.py --state-store rocksdb
--changelog-checkpointing`
"""

from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle

OUTPUT_MODE = "update"
KEY = ["group"]

MARKS = ("first", "last", "size")
TIMER_AHEAD_MS = 3_600_000  # an hour: the timer never fires during the exhibit


class ThreeKinds(StatefulProcessor):
    """Counts the records, appends their values to a list, marks the batch in a map, and
    registers a timer an hour ahead."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.handle = handle
        self.count = handle.getValueState("count", "count long")
        self.values = handle.getListState("values", "n long")
        self.marks = handle.getMapState("marks", "mark string", "n long")

    def handleInputRows(
        self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any
    ) -> Iterator[pd.DataFrame]:
        numbers = [int(n) for batch in rows for n in batch["n"]]
        if not numbers:
            return
        before = int(self.count.get()[0]) if self.count.exists() else 0
        self.count.update((before + len(numbers),))
        self.values.appendList([(n,) for n in numbers])
        for mark, n in zip(MARKS, (min(numbers), max(numbers), len(numbers))):
            self.marks.updateValue((mark,), (n,))
        self.handle.registerTimer(timerValues.getCurrentProcessingTimeInMs() + TIMER_AHEAD_MS)
        timers = len(list(self.handle.listTimers()))
        yield pd.DataFrame(
            {"group": [key[0]], "count": [before + len(numbers)], "timers": [timers]}
        )

    def handleExpiredTimer(
        self, key: Any, timerValues: Any, expiredTimerInfo: Any
    ) -> Iterator[pd.DataFrame]:
        return iter(())

    def close(self) -> None:
        pass


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(
        F.lit("all").alias("group"), F.col("value").cast("string").cast("long").alias("n")
    )
    return numbers.groupBy("group").transformWithStateInPandas(
        ThreeKinds(), "group string, count long, timers long", "Update", "ProcessingTime"
    )
