"""Start Spark's Python worker for the counter while the query starts, not inside its first batch.

Both counters (applyInPandasWithState, transformWithStateInPandas) run in a Python worker that
Spark forks from its `pyspark.daemon` the first time a task needs one; the worker then imports
pandas and pyarrow. On a restart that happened inside the first batch, after the session and
the query had started, one after the other: about 1 s of a 7-8 s restart on the connector
(measured, BENCHMARKS.md "Where a restart's time goes"). A one-row `mapInPandas` job run in a
background thread as soon as the session exists forks the same daemon and leaves an idle worker
with pandas and pyarrow imported; Spark reuses it (`spark.python.worker.reuse`, on by default)
for the state task of the first batch, because both come from the same Python executable,
worker module and environment.

On a cluster each executor forks its own daemon and worker, and the state task may run on any
of them: there the job has one task per core the application has (its default parallelism;
every executor has registered by the time the session exists), so that each executor warms
one. With one executor warmed, the first batch's state task on the other took 4.5 s longer
(executor-loss, measured from Spark's event log).

Nothing else changes: the query's plan, batches and checkpoint are the same. The Spark UI shows
one extra job, named for what it is. A failure here (a stop while it runs) is only logged: the
first batch then starts its worker itself, as before.

Usage: `warm_python_worker(spark)` right after the session is created.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["warm_python_worker", "JOB_DESCRIPTION"]

JOB_DESCRIPTION = (
    "checkpoint-experience: start a Python worker for the counter ahead of the first batch"
)


def warm_python_worker(spark: Any) -> threading.Thread:
    """Run the warm-up job in a daemon thread; returns the thread (joined only by tests)."""
    thread = threading.Thread(target=_run, args=(spark,), name="python-worker-warmup", daemon=True)
    thread.start()
    return thread


def _identity(batches: Iterator[Any]) -> Iterator[Any]:
    yield from batches


def _tasks(context: Any) -> int:
    """One for local[N] (one JVM, one daemon); one per core on a cluster (one per executor and
    core: each executor has its own daemon)."""
    return 1 if context.master.startswith("local[") else max(1, context.defaultParallelism)


def _run(spark: Any) -> None:
    try:
        # Job descriptions are thread-local in Spark: this one names only the warm-up's job.
        spark.sparkContext.setJobDescription(JOB_DESCRIPTION)
        tasks = _tasks(spark.sparkContext)
        spark.range(tasks, numPartitions=tasks).mapInPandas(_identity, "id long").collect()
    except Exception as error:  # a stop while it runs; the first batch starts its own worker
        logging.getLogger("spark_app").info(
            "Python worker warm-up skipped: %s", str(error).splitlines()[0][:200]
        )
