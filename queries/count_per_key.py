"""A count per key: the simplest stateful query, an aggregation in update mode.

Each record's value is a number (the producer's counter); its bucket is the value modulo 5, and
the query keeps how many records each bucket has seen. Update mode writes a bucket's row again
whenever its count moves, so the last row written per bucket is the count so far.

Usage: `python -m spark_app --query queries/count_per_key.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
