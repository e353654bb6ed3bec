"""Tomorrow: the same grouping, the count changed to a sum of the values, under the same name.

Result: bucket bigint, records bigint (now a sum). State: key bucket bigint, value sum bigint:
the same types in the same place as the count's, so Spark's schema check, which compares by
position and type, cannot tell them apart.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.sum("n").alias("records"))
