"""Tomorrow: the same count, deployed with a cap of two messages per batch.

Result and state: unchanged. The source's maxOffsetsPerTrigger is 2 (none before): a rate
limit, read by the source at every batch, not pinned in the checkpoint.
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["bucket"]
SETTINGS = {"max_offsets_per_trigger": 2}


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.groupBy((F.col("n") % 5).alias("bucket")).agg(F.count("*").alias("records"))
