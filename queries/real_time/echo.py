"""Each record once more, as it came: the stateless query of the real-time-mode scenario.

A projection and nothing else, so Real-time Mode's allowlist admits it (no state, no Python
function per row). Update mode, as Real-time Mode requires; KEY is the record's offset, which
names one input record. `sent` is the record's Kafka timestamp, so a reader of the output topic
can tell each record's latency from the two records' timestamps.

Usage: `python -m spark_app --query queries/real_time/echo.py --trigger real-time
--output-topic Echo --on-negative-key ignore`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["offset"]


def build(records: DataFrame) -> DataFrame:
    return records.select(
        F.col("value").cast("string").cast("long").alias("value"),
        "offset",
        F.col("timestamp").alias("sent"),
    )
