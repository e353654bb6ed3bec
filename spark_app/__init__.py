"""The Spark side of the playground: seed 001's SparkApp on PySpark 4.

A Structured Streaming query reads Kafka through Spark's connector (or, offline, our own
source), keeps the running count in Spark's state store, and writes the output log once per
batch.

The app in rooms: `query/` is the streaming query and its parts; `failures/` names every Spark
failure the app recognises, as one of its one-line errors; `lines/` holds every line the app
prints that another process reads (each module a contract, with its parser, free of pyspark);
`source/` is our Kafka source, `checkpoint/` reads a checkpoint folder without Spark, `runtime/`
is where the app runs. The top keeps what the whole app and its readers share: the command
line, the settings, the one-line errors, the offsets JSON and the supervisor.

Other packages (the scenarios, the demo, the benchmarks) read the top-level contracts in
`__all__` and any module of `lines/`; deeper in, only names a module lists in its own `__all__`
(tests/test_app_contracts.py holds them to that).

Usage: `python -m spark_app --help` and `python -m spark_app inspect --help`
"""

# The top-level contracts; `lines/` is a contract folder as a whole.
__all__ = ["settings", "errors", "offsets", "supervisor", "lines"]
