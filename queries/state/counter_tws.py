"""The seed's counter on transformWithState, as a query module: compat's fourth counter cell.

The same running count as queries/counter.py, on applyInPandasWithState's successor
(`transformWithStateInPandas`, `--counter transform-with-state` in the app): its state is a value
state variable in a RocksDB store, with operator metadata v2 and the variables' schemas in the
checkpoint (spark_app/query/counter_tws.py). As a module it runs through the query's own sink
and the oracle, so `scenarios compat` can hold a transformWithState checkpoint carried from one
Spark line to another to the same rule as the rest: every message once, `count` its place.

Outside the gallery's folder: the gallery shows production's operators (queries/*.py), and this
is the counter again; compat names it `counter_tws`.

Result: topic string, partition int, offset bigint, key string, value string, count bigint.
State (transformWithStateInPandas, one group, RocksDB only): a value state `count` bigint.

Usage: `python -m spark_app --query queries/state/counter_tws.py --state-store rocksdb`
"""

from pyspark.sql import DataFrame

from spark_app.query.counter_tws import count_messages_tws

OUTPUT_MODE = "update"
KEY = ["topic", "partition", "offset"]


def build(records: DataFrame) -> DataFrame:
    return count_messages_tws(records)
