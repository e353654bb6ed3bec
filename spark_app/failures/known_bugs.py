"""Spark's own bugs, recognised in a failure and named with their ticket and what to do.

Two are known on the connector (the museum's table says on which Spark lines): SPARK-55271, a
NullPointerException in `KafkaMicroBatchStream.metrics` after a replayed batch on 4.1, and
SPARK-53560, the batch a Trigger.AvailableNow run left planned refused after partitions were
added. Their lines, and the parser the scenarios read them back with, are the app's contract
in spark_app/lines/known_spark_bugs.py; this module decides when a failure is one of them.

Usage: `error = known_spark_bug(text, settings, "4.1.1")` (None: not one of these)
"""

from __future__ import annotations

from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError, StreamFailedError
from spark_app.lines.known_spark_bugs import (
    METRICS_NPE,
    PREFETCH_WORDS,
    prefetch_mismatch_line,
    replay_bug_line,
)
from spark_app.settings import SparkAppSettings

__all__ = ["known_spark_bug"]


def known_spark_bug(
    text: str, settings: SparkAppSettings, spark_version: str
) -> StreamFailedError | None:
    """The app's line for a failure that is a known Spark bug, or None."""
    if settings.source != "spark-kafka":
        return None
    if PREFETCH_WORDS in text:
        return StreamFailedError(prefetch_mismatch_line(spark_version, settings.spark_log_file))
    if METRICS_NPE not in text:
        return None
    return StreamFailedError(
        replay_bug_line(spark_version, _committed_batch(settings), settings.spark_log_file)
    )


def _committed_batch(settings: SparkAppSettings) -> int | None:
    """The replayed batch when its commit was written (then a second start goes on normally)."""
    try:
        info = read_checkpoint(settings.checkpoint.folder)
    except (CheckpointError, OSError):
        return None
    if info.pending is None and info.last_committed is not None:
        return info.last_committed.batch_id
    return None
