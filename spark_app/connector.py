"""Which Kafka source the query reads with, and the options it gets: ours or Spark's own.

`--source python` (the default) is our source (kafka_source.py), which needs nothing from the
network. `--source spark-kafka` runs the same query on Spark's own connector, `format("kafka")`,
which Spark fetches as the Maven package `org.apache.spark:spark-sql-kafka-0-10_2.13:<the
running Spark's version>` through `spark.jars.packages`. On a machine that reaches no Maven
repository (ours), Spark's resolver would try for minutes; we look first, in seconds, and say
so in one line.

Both get the same options, so the query is the same: only the format name differs, and our
source's own options (`checkpointLocation`, `logFile`, `offsetsGroup`) are left out for the
connector, which would ignore them anyway.

Usage:
    reader = spark.readStream.format(source_format(settings)).options(**source_options(settings))
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from urllib.parse import urlparse

from spark_app.errors import ConnectorUnavailableError
from spark_app.settings import SparkAppSettings

__all__ = ["source_format", "source_options", "connector_package", "check_connector_available",
           "MAVEN_CENTRAL"]

MAVEN_CENTRAL = "https://repo1.maven.org/maven2/"
_LOOK_SEC = 5.0


def source_format(settings: SparkAppSettings) -> str:
    from spark_app.source.kafka_source import SOURCE_NAME

    return "kafka" if settings.source == "spark-kafka" else SOURCE_NAME


def source_options(settings: SparkAppSettings) -> dict[str, str]:
    """The reader's options. startingOffsets is always given: the app keeps the seed's
    `earliest`, where the connector's own default is `latest`."""
    options = {"kafka.bootstrap.servers": settings.bootstrap_servers,
               "subscribe": settings.topic,
               "startingOffsets": settings.starting_offsets,
               "failOnDataLoss": str(settings.fail_on_data_loss).lower()}
    if settings.max_offsets_per_trigger:
        options["maxOffsetsPerTrigger"] = str(settings.max_offsets_per_trigger)
    for pair in settings.source_options:  # given last: they may override the app's own
        key, _, value = pair.partition("=")
        options[key.strip()] = value
    if settings.source == "python":
        options["checkpointLocation"] = str(settings.checkpoint_dir.resolve())
        options["logFile"] = str(settings.spark_log_file.resolve())
        if settings.offsets_from_group:
            options["offsetsGroup"] = settings.offsets_from_group
    return options


def connector_package(spark_version: str) -> str:
    """Spark's Kafka connector for this Spark (Scala 2.13, as every Spark 4 build)."""
    return f"org.apache.spark:spark-sql-kafka-0-10_2.13:{spark_version}"


def _cached_jar(spark_version: str) -> Path | None:
    """The connector's jar in Ivy's cache, where spark.jars.packages puts what it fetched."""
    name = f"org.apache.spark_spark-sql-kafka-0-10_2.13-{spark_version}.jar"
    for folder in sorted(Path.home().glob(".ivy2*")):
        if (folder / "jars" / name).exists():
            return folder / "jars" / name
    return None


def _answers(url: str) -> str | None:
    """None if something accepts a TCP connection at the repository's host, else why not."""
    parsed = urlparse(url)
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    outcome: list[str | None] = []

    def connect() -> None:  # in a thread: name resolution has no timeout of its own
        try:
            socket.create_connection((parsed.hostname, port), timeout=_LOOK_SEC).close()
            outcome.append(None)
        except OSError as err:
            outcome.append(f"{type(err).__name__}: {err}")

    thread = threading.Thread(target=connect, daemon=True)
    thread.start()
    thread.join(_LOOK_SEC + 1)
    return outcome[0] if outcome else f"no answer within {_LOOK_SEC:.0f} s"


def check_connector_available(spark_version: str) -> None:
    """Raise ConnectorUnavailableError (one line) unless Spark can get the connector."""
    if _cached_jar(spark_version) is not None:
        return
    why = _answers(MAVEN_CENTRAL)
    if why is None:
        return
    raise ConnectorUnavailableError(
        f"Spark's Kafka connector {connector_package(spark_version)} could not be fetched: Maven "
        f"Central does not answer ({urlparse(MAVEN_CENTRAL).hostname}: {why}). `--source python` "
        f"(the default) needs nothing from the network.")
