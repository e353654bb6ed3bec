"""The streaming query and its parts: the query itself (`app`), the running count
(`counter`, or `counter_tws` on transformWithState), the exactly-once sink, the progress
listener that prints the batch line, the stop between batches (`graceful_stop`), the initial
state, the negative key's crash, the choice of Kafka source (`source_choice`) and the offsets
kept in a consumer group (`group_offsets`, `connector_group`).

These are the app's insides: other packages read a name here only if its module lists it in
`__all__`.
"""
