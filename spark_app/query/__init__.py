"""The streaming query and its parts: the run loop (`app`), the checks before Spark starts
(`preflight`), the query it runs (`count_query`: the running count, by `counter` or, on
transformWithState, `counter_tws`), the foreachBatch handler (`batch_handler`) and its
exactly-once sink, the progress listener that prints the batch line, the stop between batches
(`graceful_stop`), the initial state, the negative key's crash, the choice of Kafka source
(`source_choice`), the offsets kept in a consumer group (`group_offsets`, `connector_group`),
and the one batch read of `python -m spark_app read` (`topic_read`).

These are the app's insides: other packages read a name here only if its module lists it in
`__all__`.
"""
