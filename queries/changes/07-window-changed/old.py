"""Today: a 10-second tumbling-window count with a 10-second watermark, update mode.

Result: window_start timestamp, records bigint. State: key window struct<start timestamp, end
timestamp>, value count bigint.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["window_start"]


def build(records: DataFrame) -> DataFrame:
    return (
        records.withWatermark("timestamp", "10 seconds")
        .groupBy(F.window("timestamp", "10 seconds"))
        .agg(F.count("*").alias("records"))
        .select(F.col("window.start").alias("window_start"), "records")
    )
