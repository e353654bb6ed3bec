"""When Spark's JVM ends before the driver: the traces it leaves go to spark.log, not the screen.

Ctrl-C in a terminal sends SIGINT to the whole foreground process group: the Python driver, the
JVM PySpark launched and Spark's Python workers. PySpark starts its JVM with SIGINT ignored, but
a JVM that ends anyway (killed with the group, out of memory) makes every Py4J call fail. Then
PySpark's accumulator server prints the traceback of its closed connection, and Py4J logs its
own on the root logger, whose first use makes Python print every later record on stderr too:
dozens of lines after the one line the app prints for a stop. This module sends those records
to spark.log, and tells such a failure apart from the batch's own.

Usage:
    keep_jvm_traces_in_log(spark, settings.spark_log_file)
    jvm_gone(failure)  # True: the JVM was no longer there to answer
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from spark_app.runtime.log_file import LOG_FORMAT

__all__ = ["keep_jvm_traces_in_log", "jvm_gone"]

# Named for whose record it is; written by the root logger's handler below.
_ACCUMULATOR_LOG = logging.getLogger("pyspark.accumulators")
# Loggers with their own file handler (log_file.py): their records are in spark.log already.
_OWN_LOGGERS = "spark_app"


class _NotOurs(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.name != _OWN_LOGGERS and not record.name.startswith(_OWN_LOGGERS + ".")


def keep_jvm_traces_in_log(spark: Any, log_file: Path) -> None:
    """From now on, this driver's Python warnings and errors that have no handler of their own
    (Py4J's among them) and the accumulator server's errors are written to `log_file`."""
    root = logging.getLogger()
    target = str(log_file.resolve())
    if not any(
        isinstance(h, logging.FileHandler) and h.baseFilename == target for h in root.handlers
    ):
        handler = logging.FileHandler(target, encoding="utf-8")
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
        handler.setLevel(logging.WARNING)
        handler.addFilter(_NotOurs())
        root.addHandler(handler)
    server = getattr(spark.sparkContext, "_accumulatorServer", None)
    if server is not None:
        # socketserver's default prints the traceback on stderr; called inside its except block.
        server.handle_error = _log_accumulator_error


def _log_accumulator_error(request: object, client_address: object) -> None:
    _ACCUMULATOR_LOG.warning(
        "PySpark's accumulator server lost its connection from the JVM (%s)",
        client_address,
        exc_info=True,
    )


def jvm_gone(failure: BaseException) -> bool:
    """Whether `failure`, or what caused it, is Py4J finding no JVM at the other end."""
    from py4j.protocol import Py4JNetworkError

    seen: set[int] = set()
    current: BaseException | None = failure
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (ConnectionError, Py4JNetworkError)):
            return True
        current = current.__cause__ or current.__context__
    return False
