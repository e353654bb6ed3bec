"""dropDuplicates: each group of three consecutive values written once, however often it comes.

The values 1, 2, 3 make group 0, the values 4, 5, 6 group 1, and so on. `dropDuplicates` keeps
every group it has seen in its state, for ever (no watermark), and writes a group the first
time it meets it. Append mode: a written row is final.

Usage: `python -m spark_app --query queries/dedup.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["group"]


def build(records: DataFrame) -> DataFrame:
    numbers = records.select(F.col("value").cast("string").cast("long").alias("n"))
    return numbers.select(((F.col("n") - 1) / 3).cast("long").alias("group")).dropDuplicates(
        ["group"]
    )
