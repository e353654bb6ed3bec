"""Spark's refusal of a query in Real-time Mode (`--trigger real-time`), in the app's one line.

Spark judges the query as it starts: an operator or a sink outside the mode's allowlist, or an
option the mode does not take, is refused with a subclass of STREAMING_REAL_TIME_MODE. The line
keeps Spark's class and words, then says what runs instead (spark_app/query/real_time.py).

Usage: `error = real_time_refusal(text, settings)`  # None: not such a refusal
"""

from __future__ import annotations

import re

from spark_app.errors import RealTimeRefusedError, SparkAppError
from spark_app.settings import SparkAppSettings

__all__ = ["real_time_refusal"]

# `[STREAMING_REAL_TIME_MODE.X] words` (or the duration's own class), the words up to the end
# of that line; the classes as PySpark 4.2.0's error-conditions.json names them.
_SPARK_REFUSAL = re.compile(
    r"\[((?:INVALID_)?STREAMING_REAL_TIME_MODE(?:\.[A-Z_]+|_TRIGGER_INTERVAL))\]\s*([^\n]*)"
)
_RUNS_HERE = (
    "Real-time Mode runs stateless queries to Spark's Kafka sink here: a stateless --query "
    "with --output-topic and --on-negative-key ignore; the counter needs another --trigger"
)
_ADVICE = {
    "STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST": _RUNS_HERE,
    "STREAMING_REAL_TIME_MODE.SINK_NOT_SUPPORTED": _RUNS_HERE,
}


def real_time_refusal(text: str, settings: SparkAppSettings) -> SparkAppError | None:
    """The app's error for Spark's refusal of a real-time query in `text`, or None."""
    if settings.trigger != "real-time":
        return None
    match = _SPARK_REFUSAL.search(text)
    if match is None:
        return None
    spark_class, words = match.group(1), " ".join(match.group(2).split())
    advice = _ADVICE.get(spark_class)
    return RealTimeRefusedError(
        f"[{spark_class}] {words}" + (f" [playground: {advice}]" if advice else "")
    )
