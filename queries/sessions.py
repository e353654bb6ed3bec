"""A session-like state of your own with applyInPandasWithState: per bucket, a running summary.

For each bucket (value modulo 5) the function keeps how many records it has seen and the
highest value among them, in Spark's state store, and writes the summary each time a batch
brings the bucket new records. Update mode: the last row per bucket is the summary so far.
(transformWithState's row API would be the newer way; PySpark 4.0 lacks it, so the gallery uses
the older function, which every served line runs.)

Result: bucket bigint, records bigint, highest bigint. State: records bigint, highest bigint.

Usage: `python -m spark_app --query queries/sessions.py`
"""

import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.streaming.state import GroupStateTimeout

OUTPUT_MODE = "update"
KEY = ["bucket"]


def summarise(key, batches, state):
    records, highest = state.get if state.exists else (0, 0)
    for rows in batches:
        records += len(rows)
        highest = max(highest, int(rows["n"].max()))
    state.update((records, highest))
    yield pd.DataFrame({"bucket": [key[0]], "records": [records], "highest": [highest]})


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    with_bucket = numbers.withColumn("bucket", F.col("n") % 5)
    return with_bucket.groupBy("bucket").applyInPandasWithState(
        summarise,
        "bucket long, records long, highest long",
        "records long, highest long",
        "Update",
        GroupStateTimeout.NoTimeout,
    )
