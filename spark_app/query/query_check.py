"""A user's query checked by Spark before it reads Kafka: a stream, its KEY there, its mode taken.

`build(records)` is run on a stand-in stream with the Kafka source's seven columns (Spark's rate
source, renamed and cast), and the result started on Spark's `noop` sink with the module's
output mode on a throwaway checkpoint, then stopped at once. So what only Spark can tell is told
before any Kafka is read and before the real checkpoint is touched, each as one line naming the
file (QueryModuleError, exit code 2):
- build raised, or returned a batch DataFrame (not built from `records`);
- a KEY column the result lacks;
- an output mode Spark refuses for this query, or a query Spark cannot run as a stream (a sort
  without an aggregation): Spark's own error class comes with the line.

It also says what the result depends on beyond the records, read from Spark's plan: a watermark
in append mode (a window is written when the watermark passes it, so where batches end decides
which windows a run writes) or the processing time (current_timestamp()). Such a result cannot
be held to the batch result row for row (scenarios/checker/query_results.py).

Usage: `depends_on = check_query(spark, query, scratch_dir)`   # raises QueryModuleError
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from spark_app.errors import QueryModuleError
from spark_app.query.user_query import UserQuery

__all__ = ["check_query", "check_result", "stand_in_records"]

# Spark's error class at the head of its message: `[UNSUPPORTED_…] …` or `[STREAMING_…] …`.
_ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")


def stand_in_records(spark: Any) -> Any:
    """A stream with the Kafka source's columns and types, made by Spark alone."""
    rate = spark.readStream.format("rate").option("rowsPerSecond", 1).load()
    return rate.selectExpr(
        "CAST(CAST(value AS STRING) AS BINARY) AS key",
        "CAST(CAST(value AS STRING) AS BINARY) AS value",
        "'stand-in' AS topic",
        "0 AS partition",
        "value AS offset",
        "timestamp",
        "0 AS timestampType",
    )


def check_result(query: UserQuery, result: Any) -> Any:
    """What build returned is a streaming DataFrame holding every KEY column."""
    if not getattr(result, "isStreaming", False):
        raise QueryModuleError(
            f"{query.path}: build(records) returned "
            + ("a batch DataFrame" if hasattr(result, "isStreaming") else repr(type(result)))
            + ": build the result from `records`, the stream it is given"
        )
    missing = [c for c in query.KEY if c not in result.columns]
    if missing:
        raise QueryModuleError(
            f"{query.path}: KEY names {', '.join(missing)}, which the result lacks: its columns "
            f"are {', '.join(result.columns)}; name those that tell one result row from another"
        )
    return result


def _built(query: UserQuery, records: Any) -> Any:
    try:
        return check_result(query, query.build(records))
    except QueryModuleError:
        raise
    except Exception as error:
        raise QueryModuleError(
            f"{query.path}: build(records) failed: {spark_class(error) or type(error).__name__}: "
            f"{_first_line(error)}"
        ) from error


def check_query(spark: Any, query: UserQuery, scratch: Path) -> str:
    """Spark's verdict on the query, before it reads Kafka (the module docstring); what its
    result depends on beyond the records, or ""."""
    result = _built(query, stand_in_records(spark))
    try:
        running = (
            result.writeStream.format("noop")
            .outputMode(query.OUTPUT_MODE)
            .option("checkpointLocation", str(scratch / "query-check"))
            .start()
        )
    except Exception as error:
        raise QueryModuleError(
            f"{query.path}: Spark refuses to run it as a stream in {query.OUTPUT_MODE} mode: "
            f"{spark_class(error) or type(error).__name__}: {_first_line(error)}; change the "
            f"query or OUTPUT_MODE"
        ) from error
    running.stop()
    return depends_on(query, result)


def depends_on(query: UserQuery, result: Any) -> str:
    """What the result depends on beyond its records, as Spark's plan shows it ("": nothing)."""
    try:
        plan = str(result._jdf.queryExecution().analyzed().toString())  # Spark Classic's plan
    except Exception:  # no JVM plan to read (Spark Connect): the module's mode alone decides
        plan = ""
    found = []
    # In append mode an aggregation or an outer join writes a row only once the watermark has
    # passed it: which rows a run has written then depends on where its batches ended. A
    # dropDuplicates or an inner join writes at once; its watermark only bounds its state.
    waits = "Aggregate" in plan or "Outer" in plan
    if query.OUTPUT_MODE == "append" and "EventTimeWatermark" in plan and waits:
        found.append("a watermark in append mode")
    if "current_timestamp()" in plan or "now()" in plan:
        found.append("the processing time")
    return " and ".join(found)


def spark_class(error: BaseException) -> str:
    """Spark's error class in the error, if it names one."""
    getter = getattr(error, "getCondition", None) or getattr(error, "getErrorClass", None)
    if getter is not None:
        try:
            found = getter()
            if found:
                return str(found)
        except Exception:  # an error without Spark's metadata: read its text instead
            pass
    match = _ERROR_CLASS.search(str(error))
    return match.group(1) if match else ""


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    text = _ERROR_CLASS.sub("", text, count=1).strip()
    return (text.splitlines() or [""])[0][:300]
