"""Our Kafka source for Structured Streaming (PySpark's Python Data Source API) and what only it
uses: its options, rows, Kafka look-ups, offset ranges, rate limits, data-loss conditions and
sources/0/0. It stands in for Spark's own connector, behaviour by behaviour.
"""
