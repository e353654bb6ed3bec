"""One batch read of the topic through Spark's Kafka connector: `python -m spark_app read`.

`spark.read.format("kafka")` from the earliest to the latest offsets, counted per partition:
what the topic holds as a batch job sees it, once, with no checkpoint. It is the connector's
other path: a batch read resolves its offsets in `KafkaOffsetReaderAdmin.fetchPartitionOffsets`
(through `getOffsetRangesFromUnresolvedOffsets`), which a stream never calls, and which before
Spark 4.2 called Kafka's admin client without retries (SPARK-55561; the museum's exhibit).

Usage: `python -m spark_app read --bootstrap-servers 127.0.0.1:9092 --topic Experience`
"""

from __future__ import annotations

import logging
from dataclasses import replace

from spark_app.errors import KafkaUnreachableError, SparkAppError
from spark_app.failures import explain_failure
from spark_app.lines.known_bug_table import FIXED, PRESENT, bug_named, line_of
from spark_app.lines.read_lines import read_line, reading_line
from spark_app.query.source_choice import source_options
from spark_app.runtime.log_file import log_to
from spark_app.runtime.session import SparkSessionResource
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.settings import SparkAppSettings

__all__ = ["read_topic"]

TICKET = "SPARK-55561"


def _named(error: SparkAppError, settings: SparkAppSettings) -> SparkAppError:
    """Kafka unreachable on a line whose batch read makes its look-up once: the line says so,
    since fetchOffset.numRetries, which a user would raise first, does not apply there."""
    version, lines = installed_spark_version(), bug_named(TICKET).lines
    if not isinstance(error, KafkaUnreachableError) or lines.get(line_of(version)) != PRESENT:
        return error
    fixed = ", ".join(line for line, status in sorted(lines.items()) if status == FIXED)
    return KafkaUnreachableError(
        f"{error} [playground: Spark {version}'s batch read looks its offsets up once, without "
        f"fetchOffset.numRetries ({TICKET}; retried on {fixed}): retry the read, or run {fixed}; "
        f"details in {settings.spark_log_file}]"
    )


def read_topic(settings: SparkAppSettings) -> int:
    """Read the topic once; print the closing line; 0, or raise one of our errors."""
    from pyspark.sql import functions as F

    # Always the connector (the read is its path); no class archive: one short session.
    settings = replace(settings, source="spark-kafka", class_cache_dir=None)
    log_to(logging.getLogger("spark_app"), settings.spark_log_file)
    print(
        reading_line(settings.topic, settings.bootstrap_servers, installed_spark_version()),
        flush=True,
    )
    with SparkSessionResource(settings) as spark:
        # The JVM's trace in the error's text, for spark.log: which look-up failed, and whether
        # withRetries was around it.
        spark.conf.set("spark.sql.pyspark.jvmStacktrace.enabled", "true")
        try:
            rows = (
                spark.read.format("kafka")
                .options(**source_options(settings))
                .option("startingOffsets", "earliest")
                .option("endingOffsets", "latest")
                .load()
                .groupBy("partition")
                .agg(
                    F.count("*").alias("records"),
                    F.min("offset").alias("low"),
                    F.max("offset").alias("high"),
                )
                .collect()
            )
        except SparkAppError:
            raise
        except Exception as err:  # Spark/Py4J errors: one of our lines, the trace in spark.log
            logging.getLogger("spark_app").error("the batch read failed: %s", err)
            raise _named(explain_failure(err, settings), settings) from err
    print(
        read_line(
            settings.topic,
            {int(r["partition"]): (int(r["records"]), int(r["low"]), int(r["high"])) for r in rows},
        ),
        flush=True,
    )
    return 0
