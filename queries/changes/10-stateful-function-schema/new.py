"""Tomorrow: the same applyInPandasWithState, its state given a field: the lowest value.

Result: bucket bigint, records bigint, highest bigint. State: records bigint, highest bigint,
lowest bigint (the field added).

For each bucket (value modulo 5) the function keeps how many records it has seen and the
highest value among them, in Spark's state store, and writes the summary each time a batch
brings the bucket new records. Update mode: the last row per bucket is the summary so far.
(transformWithState's row API would be the newer way; PySpark 4.0 lacks it, so the gallery uses
the older function, which every served line runs.)

Usage: `python -m spark_app --query queries/changes/10-stateful-function-schema/new.py`
"""

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupStateTimeout

OUTPUT_MODE = "update"
KEY = ["bucket"]


def summarise(key, batches, state):
    records, highest, lowest = state.get if state.exists else (0, 0, 2**62)
    for rows in batches:
        records += len(rows)
        highest = max(highest, int(rows["n"].max()))
        lowest = min(lowest, int(rows["n"].min()))
    state.update((records, highest, lowest))
    yield pd.DataFrame({"bucket": [key[0]], "records": [records], "highest": [highest]})


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    with_bucket = numbers.withColumn("bucket", F.col("n") % 5)
    return with_bucket.groupBy("bucket").applyInPandasWithState(
        summarise,
        "bucket long, records long, highest long",
        "records long, highest long, lowest long",
        "Update",
        GroupStateTimeout.NoTimeout,
    )
