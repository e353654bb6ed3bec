"""A real standalone cluster from PySpark's launcher: Workers register, one dies and is seen dead
by the Master, a replacement joins, and nothing is left running afterwards, also on an error."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.runtime.cluster import ClusterSettings, StandaloneCluster

pytestmark = pytest.mark.spark


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_for(condition, timeout_sec: float = 120) -> bool:
    deadline = time.monotonic() + timeout_sec
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return False


def test_workers_die_and_join_and_nothing_is_left(tmp_path: Path) -> None:
    with StandaloneCluster(ClusterSettings(workers=2), tmp_path) as cluster:
        assert cluster.master_url.startswith("spark://127.0.0.1:")
        assert cluster.alive_workers() == 2
        cluster.kill_worker(0)
        # The Master learns of the death when the Worker's connection drops, not after a timeout.
        assert wait_for(lambda: cluster.alive_workers() == 1, 60)
        cluster.add_worker()
        assert cluster.alive_workers() == 2
        states = sorted(w["state"] for w in cluster.status()["workers"])
        assert states == ["ALIVE", "ALIVE", "DEAD"]
        pids = cluster.pids()
    assert all(gone(pid) for pid in pids)


def test_an_error_inside_the_block_still_stops_everything(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="a step failed"):
        with StandaloneCluster(ClusterSettings(workers=1), tmp_path) as cluster:
            pids = cluster.pids()
            raise RuntimeError("a step failed")
    assert all(gone(pid) for pid in pids)


def test_the_app_counts_exactly_once_on_the_standalone_cluster(
    embedded_broker, tmp_path: Path
) -> None:
    """`python -m spark_app --master spark://...`: executors on both Workers, one checkpoint."""
    from scenarios.checker.verify import verify_file
    from spark_app.settings import SparkAppSettings
    from tests.spark_app.app_process import AppProcess
    from tests.spark_app.kafka_helpers import create_topic, send_counter

    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 21))
    output = tmp_path / "log" / "streaming-output.log"
    with StandaloneCluster(ClusterSettings(workers=2), tmp_path / "cluster") as cluster:
        settings = SparkAppSettings(
            bootstrap_servers=bootstrap,
            checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"),
            log_dir=tmp_path / "log",
            trigger_sec=0.5,
            master=cluster.master_url,
        )
        with AppProcess(tmp_path, settings.to_argv()) as app:
            assert wait_for(lambda: output.exists() and verify_file(output).highest == 20, 600), (
                app.output()
            )
            [running] = cluster.status()["activeapps"]
            assert running["state"] == "RUNNING" and running["cores"] == 2  # one core per Worker
            send_counter(bootstrap, range(21, 31))
            assert wait_for(lambda: verify_file(output).highest == 30, 120), app.output()
            assert app.terminate() == 0, app.output()
    report = verify_file(output)
    assert report.ok and report.final_count == 30
