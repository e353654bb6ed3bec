"""A stream-static join: every record looked up in a small table that does not stream.

The table names the five buckets (value modulo 5). A stream-static inner join keeps no state:
each batch's records are joined to the table as it is, so a restart replays a batch with the
same result. Append mode, one row per record.

Usage: `python -m spark_app --query queries/stream_static_join.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["value"]

NAMES = [(0, "zero"), (1, "one"), (2, "two"), (3, "three"), (4, "four")]


def build(records: DataFrame) -> DataFrame:
    names = records.sparkSession.createDataFrame(NAMES, "bucket long, name string")
    numbers = records.select(F.col("value").cast("string").cast("long").alias("value"))
    with_bucket = numbers.withColumn("bucket", F.col("value") % 5)
    return with_bucket.join(names, "bucket").select("value", "bucket", "name")
