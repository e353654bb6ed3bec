"""Which Kafka source the query reads with, and the options it gets: ours or Spark's own.

`--source spark-kafka` (the default, what production runs) reads with Spark's own connector,
`format("kafka")`:
`org.apache.spark:spark-sql-kafka-0-10_2.13:<the running Spark's version>`, fetched once into
the project's cache and given to Spark as `spark.jars` (runtime/connector_jars.py).
`--source python` (or `--offline`) runs the same query on our source (kafka_source.py), which
needs nothing from the network.

Both get the same options, so the query is the same: only the format name differs, and our
source's own options (`checkpointLocation`, `logFile`, `offsetsGroup`) are left out for the
connector, which would ignore them anyway.

Usage:
    register_source(spark, settings)
    reader = spark.readStream.format(source_format(settings)).options(**source_options(settings))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spark_app.settings import SparkAppSettings

__all__ = [
    "source_format",
    "source_options",
    "register_source",
    "connector_package",
    "check_connector_available",
]


def source_format(settings: SparkAppSettings) -> str:
    from spark_app.source.kafka_source import SOURCE_NAME

    return "kafka" if settings.source == "spark-kafka" else SOURCE_NAME


def register_source(spark: Any, settings: SparkAppSettings) -> None:
    """Make our source known to the session when it reads with it."""
    if settings.source == "python":
        # Registering a Python data source makes Spark look up every installed one in a
        # Python process of its own (~1 s); the connector, a JVM source, needs none.
        from spark_app.source.kafka_source import KafkaSource

        spark.dataSource.register(KafkaSource)


def source_options(settings: SparkAppSettings) -> dict[str, str]:
    """The reader's options. startingOffsets is always given: the app keeps the seed's
    `earliest`, where the connector's own default is `latest`."""
    # Exactly one way to subscribe: the connector refuses both at once.
    subscription = (
        {"subscribePattern": settings.subscribe_pattern}
        if settings.subscribe_pattern
        else {"subscribe": settings.topic}
    )
    options = {
        "kafka.bootstrap.servers": settings.bootstrap_servers,
        **subscription,
        "startingOffsets": settings.starting_offsets,
        "failOnDataLoss": str(settings.fail_on_data_loss).lower(),
    }
    if settings.max_offsets_per_trigger:
        options["maxOffsetsPerTrigger"] = str(settings.max_offsets_per_trigger)
    if settings.min_offsets_per_trigger:
        options["minOffsetsPerTrigger"] = str(settings.min_offsets_per_trigger)
    if settings.max_trigger_delay:
        options["maxTriggerDelay"] = settings.max_trigger_delay
    for pair in settings.source_options:  # given last: they may override the app's own
        key, _, value = pair.partition("=")
        options[key.strip()] = value
    if settings.source == "python" and settings.checkpoint.is_local:
        # Our source reads sources/0/0 from this folder; on a store it cannot (it would need
        # Hadoop's client in every Python worker), and warns that a replayed batch 0 resolves
        # startingOffsets again.
        options["checkpointLocation"] = str(settings.checkpoint.folder.resolve())
        options["logFile"] = str(settings.spark_log_file.resolve())
        if settings.offsets_from_group:
            options["offsetsGroup"] = settings.offsets_from_group
    return options


def connector_package(spark_version: str) -> str:
    """Spark's Kafka connector for this Spark (Scala 2.13, as every Spark 4 build)."""
    from spark_app.runtime.connector_jars import connector_coordinate

    return connector_coordinate(spark_version)


def check_connector_available(spark_version: str) -> list[Path]:
    """The connector's jars for this Spark, fetched on first use with progress on stderr;
    ConnectorUnavailableError (one line) when the registry lacks them or cannot be reached."""
    from spark_app.runtime.connector_jars import connector_jars

    return connector_jars(spark_version)
