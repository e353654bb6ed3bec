"""dropDuplicatesWithinWatermark: duplicates dropped while they are close in event time.

The same groups as dedup.py, but each group is remembered only until the watermark (the newest
timestamp less 30 seconds) passes the time it was first seen, so the state stays bounded. A
duplicate that arrives later than that is written again: with the producer's counter no group
comes back that late, so every group is written once.

Usage: `python -m spark_app --query queries/dedup_within_watermark.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["group"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(
        "timestamp", F.col("value").cast("string").cast("long").alias("n")
    ).withWatermark("timestamp", "30 seconds")
    grouped = numbers.select("timestamp", ((F.col("n") - 1) / 3).cast("long").alias("group"))
    return grouped.dropDuplicatesWithinWatermark(["group"]).select("group")
