"""Tomorrow: the same count, with a column added after the aggregation (the bucket's parity).

Result: bucket bigint, records bigint, even boolean. State: unchanged (key bucket bigint, value
count bigint): the new column is computed from the result, after the state.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    counted = numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
    return counted.withColumn("even", F.col("bucket") % 2 == 0)
