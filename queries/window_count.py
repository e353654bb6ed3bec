"""A tumbling-window count with a watermark on the record's timestamp, in append mode.

Records are counted per 10-second window of their Kafka timestamp. The watermark trails the
newest timestamp seen by 10 seconds; append mode writes a window once, when the watermark has
passed its end, and never again. What it writes therefore depends on where batches begin and
end: a window still open when the run stops is never written, and a record later than the
watermark is dropped (Spark counts it as dropped by the watermark).

Usage: `python -m spark_app --query queries/window_count.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["window_start"]


def build(records: DataFrame) -> DataFrame:
    return (
        records.withWatermark("timestamp", "10 seconds")
        .groupBy(F.window("timestamp", "10 seconds"))
        .agg(F.count("*").alias("records"))
        .select(F.col("window.start").alias("window_start"), "records")
    )
