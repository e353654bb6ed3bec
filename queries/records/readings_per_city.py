"""A user's own records, read as JSON: readings and the warmest per city, update mode.

For the records of queries/records/cities.jsonl (`--records`), each a city's temperature as a
JSON value, keyed by the city, with its event time as the record's timestamp.

Result: city string, readings bigint, warmest double. State (the aggregation): key city string,
values count bigint and max double.

Usage: `python -m scenarios run endless-retention --fast --records queries/records/cities.jsonl
        --query queries/records/readings_per_city.py`
"""

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

OUTPUT_MODE = "update"
KEY = ["city"]


def build(records: DataFrame) -> DataFrame:
    reading = F.from_json(F.col("value").cast("string"), "city string, temp double")
    readings = records.select(reading.alias("r")).select("r.city", "r.temp")
    return readings.groupBy("city").agg(
        F.count("*").alias("readings"), F.max("temp").alias("warmest")
    )
