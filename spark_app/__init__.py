"""The Spark side of the playground: seed 001's SparkApp on PySpark 4.

A Structured Streaming query reads Kafka through our own source (`kafka_source`), keeps the
running count in Spark's state store (`counter`), and writes the output log once per batch
(`sink`). `checkpoint` reads a checkpoint folder without Spark; `inspect` explains it.

Usage: `python -m spark_app --help` and `python -m spark_app inspect --help`
"""

__all__: list[str] = []
