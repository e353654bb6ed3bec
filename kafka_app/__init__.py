"""The Kafka side of the playground: the producer app, and the embedded broker (`broker/`).

The contracts other packages read (the scenarios, the demo, the benchmarks) are the top-level
modules listed in `__all__`; deeper in, they use only names a module lists in its own `__all__`
(tests/test_app_contracts.py holds them to that).

Usage: `python -m kafka_app --help` and `python -m kafka_app.broker --help`
"""

__all__ = [
    "settings",
    "message_line",
    "sent_records",
    "user_records",
    "logs",
    "topic_offsets",
    "topic_setup",
    "partitioning",
    "kafka_choice",
]
