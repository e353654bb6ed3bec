"""Today: a count per bucket (the value modulo 5), update mode.

Result: bucket bigint, records bigint. State (the aggregation): key (bucket bigint), value
(count bigint).
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
