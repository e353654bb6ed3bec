"""`--trigger real-time`: Spark's Real-time Mode, offered where it can run, refused in one line
where it cannot.

Real-time Mode (Spark 4.1 in the JVM, PySpark's `trigger(realTime=...)` from 4.2.0) runs one
long batch per duration and processes each record as it arrives: latency per record is
milliseconds, but the checkpoint is written once per duration, so a crash replays up to one.
Its allowlist admits stateless operators, the Kafka source and the Kafka, foreach, console and
memory sinks. So the app's exactly-once sink (foreachBatch) and the counter
(applyInPandasWithState) are out; `--output-topic` writes a stateless query's rows through
Spark's Kafka sink, which is in.

Refused here, before Spark starts: a PySpark line before 4.2 and a duration under Spark's
minimum. A query outside the allowlist is refused by Spark as the query starts;
spark_app/failures/real_time.py turns that into one line that keeps Spark's class and words.

Usage:
    check_real_time(settings, installed_spark_version())   # raises RealTimeUnavailableError
    writer = real_time_trigger(writer, settings)            # .trigger(realTime="5 seconds")
"""

from __future__ import annotations

from typing import Any

from spark_app.errors import RealTimeDurationError, RealTimeUnavailableError
from spark_app.runtime.spark_version import major_minor
from spark_app.settings import SparkAppSettings

__all__ = [
    "FIRST_LINE",
    "MIN_DURATION_SEC",
    "check_real_time",
    "kafka_sink",
    "real_time_trigger",
]

FIRST_LINE = (4, 2)
# spark.sql.streaming.realTimeMode.minBatchDuration's default.
MIN_DURATION_SEC = 5.0


def check_real_time(settings: SparkAppSettings, version: str) -> None:
    """Refuse, in one line, what can be known before Spark starts: the line and the duration."""
    if settings.trigger != "real-time":
        return
    if major_minor(version) < FIRST_LINE:
        raise RealTimeUnavailableError(
            f"PySpark {version} has no trigger(realTime=...): Real-time Mode came to PySpark "
            f"with 4.2.0 (Spark 4.1 has it in the JVM only); run PySpark 4.2.0 or another "
            f"--trigger"
        )
    if settings.real_time_sec < MIN_DURATION_SEC:
        raise RealTimeDurationError(
            f"--real-time-sec {settings.real_time_sec:g} is under Real-time Mode's minimum of "
            f"{MIN_DURATION_SEC:g} s (spark.sql.streaming.realTimeMode.minBatchDuration)"
        )


def real_time_trigger(writer: Any, settings: SparkAppSettings) -> Any:
    """The writer with Real-time Mode's trigger, its duration in Spark's words."""
    return writer.trigger(realTime=f"{settings.real_time_sec:g} seconds")


def kafka_sink(rows: Any, settings: SparkAppSettings) -> Any:
    """The query's rows as JSON record values to `--output-topic`, through Spark's Kafka sink.
    A projection, so a stateless query stays stateless (and in Real-time Mode's allowlist)."""
    return (
        rows.selectExpr("to_json(struct(*)) AS value")
        .writeStream.format("kafka")
        .option("kafka.bootstrap.servers", settings.bootstrap_servers)
        .option("topic", settings.output_topic)
    )
