"""Tomorrow: each record looked up in a small table before the count (a stream-static join).

Result: bucket bigint, records bigint (only the records whose value the table names: odd ones).
State: unchanged (key bucket bigint, value count bigint); the join keeps no state.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]


def build(records: DataFrame) -> DataFrame:
    odd = records.sparkSession.createDataFrame([(1, "odd")], "parity long, name string")
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    joined = numbers.withColumn("parity", F.col("n") % 2).join(odd, "parity")
    return joined.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
