"""Tomorrow: the same count, deployed with four shuffle partitions instead of one.

Result and state: unchanged. The app's setting spark.sql.shuffle.partitions asks for 4; the
checkpoint pinned 1 in its offset log.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]
SETTINGS = {"shuffle_partitions": 4}


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
