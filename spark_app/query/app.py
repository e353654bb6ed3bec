"""The seed's SparkApp: the run loop that starts Spark, runs the query until stopped, and stops.

One Structured Streaming query: Spark's Kafka connector (or, offline, our source) -> the query
(today the running count, count_query.py) -> the foreachBatch handler that writes the output log
through the exactly-once sink (batch_handler.py), with the checkpoint in `--checkpoint-dir`.

The loop: check what can be checked without Spark (preflight.py), start the session, build and
start the query, wait, and stop between batches on SIGTERM or Ctrl-C (graceful_stop.py), saying
so in one line. A query whose Python worker did not start in time runs again from its checkpoint
(a few times); any other failure is named by spark_app/failures/ and raised as one of the app's
errors, for the CLI to print in one line.

Usage: `SparkApp(SparkAppSettings()).run()`
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from spark_app.errors import SparkAppError
from spark_app.failures import explain_failure, is_transient
from spark_app.query.chosen import QueryModule, Writer, query_for, start_writing, writer_for
from spark_app.query.graceful_stop import (
    STOPPED_BEFORE_OUTPUT,
    STOPPED_BEFORE_START,
    STOPPED_CLEANLY,
    STOPPED_JVM_GONE,
    interrupted_line,
    stop_between_batches,
    stopped_before_output,
)
from spark_app.query.preflight import judge_store_pins, preflight, with_start
from spark_app.query.progress import ProgressPrinter, console_writer
from spark_app.query.source_choice import register_source, source_format, source_options
from spark_app.runtime.checkpoint_store import commit_check
from spark_app.runtime.connect import query_session
from spark_app.runtime.jvm_end import jvm_gone, keep_jvm_traces_in_log
from spark_app.runtime.log_file import log_to
from spark_app.runtime.session import SparkSessionResource, jvm_pid
from spark_app.runtime.worker_warmup import warm_python_worker
from spark_app.settings import SparkAppSettings

__all__ = ["SparkApp", "QueryModule"]  # QueryModule: chosen.py's, named here as before

_QUERY_ATTEMPTS = 3

# How long a stop waits for Spark to deliver the last batch's progress (its console line): a
# moment normally; bounded because a JVM that is going away delivers nothing more.
_LAST_PROGRESS_SEC = 3.0


class SparkApp:
    """Runs the query until stopped (returns) or failed (raises a SparkAppError)."""

    def __init__(self, settings: SparkAppSettings, query: QueryModule | None = None) -> None:
        self.settings = settings
        # The counter, or a user's module (--query), refused here, before anything starts.
        self.query: QueryModule = query_for(settings) if query is None else query
        # A plain flag, set by the signal handler and polled by the wait: an Event takes a lock
        # in set(), and a second signal arriving inside that set() ran the handler again on the
        # same thread, which waited for its own lock for ever (SIGTERM from `timeout` and from
        # `uv run` together, 26 Nov: the app hung with its JVM gone).
        self._stop_asked = False
        self._printer: ProgressPrinter | None = None

    def request_stop(self, *_: object) -> None:
        self._stop_asked = True

    @property
    def stop_asked(self) -> bool:
        return self._stop_asked

    def _install_signals(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self.request_stop)
            signal.signal(signal.SIGINT, self.request_stop)

    def run(self) -> None:
        self._install_signals()
        log_to(logging.getLogger("spark_app"), self.settings.spark_log_file)
        self.settings = with_start(self.settings, preflight(self.settings))
        with SparkSessionResource(self.settings) as spark:
            # PySpark's SparkContext takes SIGINT over as it starts: its handler cancels every
            # job and raises KeyboardInterrupt inside whatever Py4J call is running, which
            # prints ~100 lines of Py4J and Java traces. Take it back: Ctrl-C stops as SIGTERM.
            self._install_signals()
            keep_jvm_traces_in_log(spark, self.settings.spark_log_file)
            judge_store_pins(spark, self.settings)
            if self._stop_asked:
                print(STOPPED_BEFORE_START, file=sys.stderr, flush=True)
                return
            warm_python_worker(spark)
            if self.settings.ui:
                print(f"Spark UI: {spark.sparkContext.uiWebUrl}", flush=True)
            # The query's session: this one, or with --connect a Connect session on a server in
            # this JVM (runtime/connect.py); the app's own checks stay on this one.
            with query_session(spark, self.settings.connect) as query_spark:
                self._run_in(
                    query_spark, commit_check(spark, self.settings.checkpoint), jvm_pid(spark)
                )

    def _run_in(self, spark: Any, commit_exists: Callable[[int], bool] | None, jvm: int) -> None:
        register_source(spark, self.settings)
        self.query, handler = writer_for(spark, self.settings, self.query, jvm)
        self._printer = ProgressPrinter(console_writer(), handler.count_of)
        spark.streams.addListener(self._printer)
        try:
            self._run_with_retries(spark, handler, commit_exists)
        finally:
            handler.close()

    def _run_with_retries(
        self, spark: Any, handler: Writer, commit_exists: Callable[[int], bool] | None
    ) -> None:
        for attempt in range(1, _QUERY_ATTEMPTS + 1):
            failure = self._run_query(spark, handler, commit_exists)
            if failure is None:
                return
            if not is_transient(failure) or attempt == _QUERY_ATTEMPTS:
                raise explain_failure(failure, self.settings)
            print(
                f"Spark's Python worker did not start in time (is the machine overloaded?); "
                f"restarting the query from its checkpoint, attempt {attempt + 1} of "
                f"{_QUERY_ATTEMPTS}",
                file=sys.stderr,
                flush=True,
            )

    def _start_query(self, spark: Any, handler: Writer) -> Any:
        s = self.settings
        records = spark.readStream.format(source_format(s)).options(**source_options(s)).load()
        return start_writing(self.query.build(records), self.query.OUTPUT_MODE, handler, s)

    def _run_query(
        self, spark: Any, handler: Writer, commit_exists: Callable[[int], bool] | None
    ) -> BaseException | None:
        """Run until stopped (None) or failed (the failure, unexplained)."""
        try:
            query = self._start_query(spark, handler)
        except SparkAppError:
            raise
        except Exception as err:  # Spark/Py4J errors: explained by the caller
            return err
        topics = self.settings.subscribe_pattern or self.settings.topic
        print(
            f"Streaming {topics} from {self.settings.bootstrap_servers}, "
            f"checkpoints in {self.settings.checkpoint.location}, output in "
            f"{self.settings.query_output if self.settings.query else self.settings.output_file}",
            flush=True,
        )
        return self._await(query, handler, commit_exists)

    def _await(
        self, query: Any, handler: Writer, commit_exists: Callable[[int], bool] | None
    ) -> BaseException | None:
        try:
            while not self._stop_asked:
                if query.awaitTermination(0.5):
                    break
            if query.isActive:
                stop_between_batches(
                    query,
                    handler.gate,
                    self.settings.checkpoint.folder,
                    commit_exists=commit_exists,
                )
            failure = query.exception()
        except Exception as err:
            failure = err
        if failure is not None and not self._stop_asked:
            return failure
        gone = failure is not None and jvm_gone(failure)
        if self._printer is not None and not gone:  # the last batch's line, then the stop line
            self._printer.ended.wait(_LAST_PROGRESS_SEC)
        if gone:
            line = STOPPED_JVM_GONE
        elif failure is not None and stopped_before_output(failure):
            line = STOPPED_BEFORE_OUTPUT
        elif failure is not None:
            line = interrupted_line(explain_failure(failure, self.settings).token)
        else:
            line = STOPPED_CLEANLY
        print(line, file=sys.stderr, flush=True)
        return None
