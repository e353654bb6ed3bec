"""Which query the app runs, and what writes its rows: the counter, or a user's query module.

The run loop (app.py) asks here once: without `--query` it runs the seed's counter
(count_query.py), written to the output log by the batch handler and its exactly-once sink;
with `--query FILE.py` it runs the user's module (user_query.py), checked by Spark before any
record is read (query_check.py), behind the seed's crash on a marked record (record_crash.py),
written by the query's own exactly-once sink (query_sink.py).

Usage:
    query = query_for(settings)                    # before Spark starts: a bad module is refused
    query, handler = writer_for(spark, settings, query, jvm_pid(spark))
    streaming_query = start_writing(query.build(records), query.OUTPUT_MODE, handler, settings)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from spark_app.query.batch_handler import BatchHandler
from spark_app.query.count_query import CountQuery
from spark_app.query.graceful_stop import Gate, OutputGate
from spark_app.query.negative_key import arm_crash_signal
from spark_app.query.query_check import check_query
from spark_app.query.query_sink import QuerySink
from spark_app.query.real_time import check_real_time, kafka_sink, real_time_trigger
from spark_app.query.record_crash import RecordCrash
from spark_app.query.server_writer import FileGate, InServer
from spark_app.query.sink import count_after
from spark_app.query.user_query import UserQuery, load_query
from spark_app.runtime.connect import check_connect_client
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.settings import SparkAppSettings

__all__ = ["QueryModule", "Writer", "query_for", "start_writing", "writer_for"]

# Under --connect, where the app and the server's Python process meet to stop between batches.
_GATE_FOLDER = "connect-output-gate"


class QueryModule(Protocol):
    """What the run loop runs: how Kafka's records become the streaming DataFrame it writes,
    and Spark's output mode for it. The counter is one (count_query.py); a user's module another."""

    OUTPUT_MODE: str

    def build(self, records: Any) -> Any: ...


class Writer(Protocol):
    """The foreachBatch function the run loop hands to Spark."""

    gate: Gate

    def __call__(self, batch: Any, batch_id: int) -> None: ...

    def count_of(self, batch_id: int) -> int | None: ...

    def close(self) -> None: ...


def query_for(settings: SparkAppSettings) -> QueryModule:
    """The counter, or the user's module loaded and checked as far as can be without Spark;
    `--trigger real-time` where it cannot run, and `--connect` without its client, are refused
    here too."""
    check_real_time(settings, installed_spark_version())
    if settings.connect:
        check_connect_client(installed_spark_version())
    return CountQuery(settings) if settings.query is None else load_query(settings.query)


@dataclass(frozen=True)
class _Guarded:
    """A user's query behind the crash on a marked record: it sees the records unchanged."""

    query: UserQuery
    crash: RecordCrash

    @property
    def OUTPUT_MODE(self) -> str:  # noqa: N802 (the module's own name for it)
        return self.query.OUTPUT_MODE

    def build(self, records: Any) -> Any:
        return self.query.build(self.crash.guarded(records))


def writer_for(
    spark: Any, settings: SparkAppSettings, query: QueryModule, jvm_pid: int
) -> tuple[QueryModule, Writer]:
    """The query as it runs, and the function that writes each batch."""
    if not isinstance(query, UserQuery):
        if settings.connect:
            gate = _server_gate(settings)
            arm_crash_signal(jvm_pid)  # the negative key's crash comes from the server's process
            build = partial(BatchHandler.in_session, settings, jvm_pid, gate, os.getpid())
            return query, InServer(build, gate, partial(count_after, settings.output_file))
        return query, BatchHandler.in_session(settings, jvm_pid)
    scratch = Path(tempfile.mkdtemp(prefix="spark_app-query-check-"))
    try:
        check_query(spark, query, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    crash = RecordCrash(settings.on_negative_key, settings.log_dir, os.getpid())
    crash.arm(jvm_pid)
    if settings.connect:
        gate = _server_gate(settings)
        return _Guarded(query, crash), InServer(
            partial(QuerySink, settings.query_output, gate), gate
        )
    return _Guarded(query, crash), QuerySink(settings.query_output, OutputGate())


def _server_gate(settings: SparkAppSettings) -> FileGate:
    """Under --connect, the gate the app and the server's Python process share, opened anew."""
    return FileGate(settings.log_dir / _GATE_FOLDER).open_fresh()


def start_writing(rows: Any, output_mode: str, handler: Writer, settings: SparkAppSettings) -> Any:
    """Start the query writing `rows` with the trigger asked for: through `handler` (our
    exactly-once sinks), or with --output-topic through Spark's Kafka sink (at least once)."""
    sink = (
        kafka_sink(rows, settings)
        if settings.output_topic
        else rows.writeStream.foreachBatch(handler)
    )
    writer = sink.outputMode(output_mode).option("checkpointLocation", settings.checkpoint.location)
    if settings.trigger == "available-now":
        return writer.trigger(availableNow=True).start()
    if settings.trigger == "real-time":
        return real_time_trigger(writer, settings).start()
    return writer.trigger(processingTime=f"{settings.trigger_sec} seconds").start()
