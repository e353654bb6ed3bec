"""Tomorrow: the same count, of distinct values: a dropDuplicates added before the aggregation.

Result: bucket bigint, records bigint. State: a second stateful operator, the dropDuplicates
(key n bigint), placed before the aggregation: the operators' numbers in the checkpoint no
longer match the query's.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    distinct = numbers.dropDuplicates(["n"])
    return distinct.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
