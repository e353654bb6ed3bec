"""A stream-stream join with watermarks: each odd value paired with the even value after it.

Both sides come from the same topic: the odd values on the left, the even ones on the right.
An odd value n pairs with n + 1, sent a second later, if it arrives within 30 seconds of n by
the records' timestamps. Spark keeps each side's rows in state until the watermarks (10 seconds
behind each side's newest timestamp) and the time bound say no partner can come any more.
Append mode: a pair is written once.

Usage: `python -m spark_app --query queries/stream_stream_join.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["odd"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select("timestamp", F.col("value").cast("string").cast("long").alias("n"))
    odd = (
        numbers.where(F.col("n") % 2 == 1)
        .select(F.col("n").alias("odd"), F.col("timestamp").alias("odd_time"))
        .withWatermark("odd_time", "10 seconds")
    )
    even = (
        numbers.where(F.col("n") % 2 == 0)
        .select(F.col("n").alias("even"), F.col("timestamp").alias("even_time"))
        .withWatermark("even_time", "10 seconds")
    )
    joined = odd.join(
        even,
        F.expr(
            "even = odd + 1 AND even_time >= odd_time "
            "AND even_time <= odd_time + interval 30 seconds"
        ),
    )
    return joined.select("odd", "even")
