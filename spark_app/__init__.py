"""The Spark side of the playground: seed 001's SparkApp on PySpark 4.

A Structured Streaming query reads Kafka through Spark's connector (or, offline, our own source
in `source/`), keeps the running count in Spark's state store (`counter`), and writes the output
log once per batch (`sink`).
`checkpoint/` reads a checkpoint folder without Spark and explains it; `runtime/` is where the
app runs (the session, the PySpark version, a standalone cluster).

The contracts other packages read (the scenarios, the demo, the benchmarks) are the top-level
modules listed in `__all__`; deeper in, they use only names a module lists in its own `__all__`
(tests/test_app_contracts.py holds them to that).

Usage: `python -m spark_app --help` and `python -m spark_app inspect --help`
"""

# The lines the app prints that others read each have their owner here: the output line, the
# batch line, the supervisor's restart and give-up lines, the negative-key crash line, the
# data-loss words, the manual-offsets start line, transformWithState's timer and TTL event lines,
# the line for a known Spark bug.
__all__ = ["settings", "errors", "output_line", "batch_line", "offsets", "supervisor",
           "negative_key", "data_loss_lines", "group_offsets", "state_events", "known_spark_bugs", "known_bug_table"]
