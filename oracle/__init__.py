"""The oracle: a user's query judged by what went into Kafka, never by what the app says of itself.

The app under test runs the query as a stream and writes its rows; the oracle, a process of its
own, evaluates the same module's `build()` over every record the producer had acknowledged
(kafka_app/sent_records.py) and writes the rows the query should have produced. The checker
(scenarios/checker/query_results.py, pure) compares the two per output mode. The oracle is
neither app's: it reads the producer's record of what was sent and loads the query module as the
app does (spark_app.query.user_query.load_query), with a Spark of its own.

Usage: `python -m oracle evaluate --query queries/dedup.py --records log/sent-records.jsonl
        --out expected.jsonl`
"""

__all__ = ["evaluate"]
