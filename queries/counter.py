"""The seed's counter as a query module: every message with its running count.

The app runs this very query by default (spark_app/query/count_query.py builds it from the
app's settings, and writes its rows as the seed's output log lines). As a module it runs like
any user's query, through the query's own sink and the oracle, which is what check-change and
compat need to hold the counter to the same rules as the gallery: every message once, and
`count` the message's place in the topic's order (one partition: its offset plus one).

Result: topic string, partition int, offset bigint, key string, value string, count bigint.
State (applyInPandasWithState, one group): count bigint.

Usage: `python -m spark_app --query queries/counter.py`
"""

from pyspark.sql import DataFrame

from spark_app.query.counter import count_messages

OUTPUT_MODE = "update"
KEY = ["topic", "partition", "offset"]


def build(records: DataFrame) -> DataFrame:
    return count_messages(records)
