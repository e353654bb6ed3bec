"""The Python worker warm-up: the counter's first task runs in a worker started before it, and a
warm-up that fails (the session stopped under it) only logs."""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from spark_app.runtime.session import SparkSessionResource, jvm_pid
from spark_app.runtime.worker_warmup import JOB_DESCRIPTION, warm_python_worker
from spark_app.settings import SparkAppSettings


def _python_children_of(pid: int) -> set[int]:
    """Every process below `pid` (the JVM's daemon and the workers it forked), as ps shows them."""
    table = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True, check=True)
    parent_of = {int(p): int(pp) for p, pp in (line.split() for line in table.stdout.splitlines())}
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        parent = frontier.pop()
        kids = {child for child, of in parent_of.items() if of == parent}
        found |= kids
        frontier |= kids
    return found


def _worker_pid(key: Any, frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({"pid": [os.getpid()]})


@pytest.mark.spark
def test_the_first_grouped_pandas_task_runs_in_the_worker_the_warm_up_started(
    tmp_path: Path,
) -> None:
    settings = SparkAppSettings(master="local[1]", log_dir=tmp_path / "log")
    with SparkSessionResource(settings) as spark:
        warm_python_worker(spark).join(120)
        started_by_warm_up = _python_children_of(jvm_pid(spark))
        jobs = spark.sparkContext.statusTracker().getJobIdsForGroup(None)
        assert started_by_warm_up, "no Python process below the JVM after the warm-up"
        assert jobs, "the warm-up ran no job"
        # A grouped pandas function, as the counters are: served by an idle worker, not a new one.
        pids = (
            spark.range(1, numPartitions=1)
            .groupBy("id")
            .applyInPandas(_worker_pid, "pid long")
            .collect()
        )
    assert pids[0]["pid"] in started_by_warm_up


class _StoppedSession:
    class sparkContext:  # noqa: N801 - the attribute's name in PySpark
        @staticmethod
        def setJobDescription(_: str) -> None:
            raise RuntimeError("Cannot call methods on a stopped SparkContext.")


def test_a_warm_up_on_a_stopped_session_logs_and_ends(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="spark_app"):
        thread = warm_python_worker(_StoppedSession())
        thread.join(10)
    assert not thread.is_alive()
    assert (
        "Python worker warm-up skipped: Cannot call methods on a stopped SparkContext."
        in caplog.text
    )
    assert JOB_DESCRIPTION.startswith("checkpoint-experience:")


class _Context:
    def __init__(self, master: str, parallelism: int) -> None:
        self.master, self.defaultParallelism = master, parallelism


def test_on_a_cluster_the_warm_up_has_a_task_per_core_so_every_executor_warms_one() -> None:
    from spark_app.runtime.worker_warmup import _tasks

    assert _tasks(_Context("local[2]", 2)) == 1  # one JVM: one daemon serves every task
    assert _tasks(_Context("local-cluster[2,1,1024]", 2)) == 2
    assert _tasks(_Context("spark://127.0.0.1:7077", 3)) == 3
