"""dropDuplicates on five key columns: the museum's SPARK-57489 exhibit, Classic and Connect.

Each group of three consecutive values (1-3 group 0, 4-6 group 1, …) is written once, as
queries/dedup.py does, but named by five columns of five types instead of one. Classic's
dropDuplicates builds its state key from the names as a Scala Set, which keeps the order given
for up to four names only; from five on the order is the Set's own. Spark Connect's planner
keeps the order given. State keys bind by position, so a checkpoint written by one and
restarted by the other meets a key of another shape (different types: refused on its schema).

Usage: `python -m spark_app --query queries/connect/dedup_five_keys.py [--connect]`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "append"
KEY = ["group_long"]


def build(records: DataFrame) -> DataFrame:
    group = ((F.col("value").cast("string").cast("long") - 1) / 3).cast("long")
    keys = records.select(
        group.alias("group_long"),
        group.cast("int").alias("group_int"),
        group.cast("string").alias("group_text"),
        group.cast("double").alias("group_double"),
        (group % 2 == 0).alias("group_even"),
    )
    return keys.dropDuplicates(
        ["group_long", "group_int", "group_text", "group_double", "group_even"]
    )
