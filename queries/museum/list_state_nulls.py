"""A transformWithState list of 100 (i, None) pairs, put every batch and read back the next:
the museum's SPARK-53743 exhibit.

SPARK-53743 (apache/spark#52479): PySpark's `ListState.put` sent a list to Spark's state server
through Arrow, and on the way pandas cast each integer column to numpy's int32, which a None
cannot be, though the column is nullable. Spark's own regression test puts 100 elements
(i, None) into a list state of schema (value int, valueNull int), both nullable, and reads them
back in the next batch; this module does the same with the playground's records (one group for
all of them), so a line with the bug fails the first batch and a line with the fix reads the
100 elements back, batch after batch and after a restart, from the checkpoint's RocksDB.

Result: group string, highest bigint (the batch's highest value), read_back bigint (elements the
list held when the batch began), nulls_read bigint (those whose valueNull came back null).
State (transformWithStateInPandas, RocksDB only): a list state `items` (value int, valueNull int).

Usage: `python -m spark_app --query queries/museum/list_state_nulls.py --state-store rocksdb`
"""

from collections.abc import Iterator
from typing import Any

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle
from pyspark.sql.types import IntegerType, StructField, StructType

OUTPUT_MODE = "update"
KEY = ["group"]

ELEMENTS = 100  # as many as Spark's regression test puts
ITEM_SCHEMA = StructType(
    [StructField("value", IntegerType(), True), StructField("valueNull", IntegerType(), True)]
)


def is_null(item: Any) -> bool:
    """A null read back: None (Spark's own protocol) or NaN (Arrow's pandas, on 4.0)."""
    return item is None or bool(pd.isna(item))


class ListOfNulls(StatefulProcessor):
    """Reads what the list holds, then puts the 100 pairs (i, None) again."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        self.items = handle.getListState("items", ITEM_SCHEMA)

    def handleInputRows(
        self, key: Any, rows: Iterator[pd.DataFrame], timerValues: Any
    ) -> Iterator[pd.DataFrame]:
        highest = max((int(batch["n"].max()) for batch in rows if len(batch)), default=0)
        held = list(self.items.get()) if self.items.exists() else []
        self.items.put([(i, None) for i in range(ELEMENTS)])
        yield pd.DataFrame(
            {
                "group": [key[0]],
                "highest": [highest],
                "read_back": [len(held)],
                "nulls_read": [sum(1 for item in held if is_null(item[1]))],
            }
        )

    def close(self) -> None:
        pass


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(
        F.lit("all").alias("group"), F.col("value").cast("string").cast("long").alias("n")
    )
    return numbers.groupBy("group").transformWithStateInPandas(
        ListOfNulls(),
        "group string, highest long, read_back long, nulls_read long",
        "Update",
        "None",
    )
