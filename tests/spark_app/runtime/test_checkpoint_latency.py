"""--checkpoint-latency: Spark's own checkpoint writes take the given time (seed 000's S3)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.runtime.checkpoint_latency import (
    CheckpointLatencyError,
    LatencySpec,
    SlowCheckpointClasses,
)
from spark_app.settings import SparkAppSettings
from tests.spark_app.app_process import AppProcess, wait_until
from tests.spark_app.kafka_helpers import create_topic, send_counter


def test_specs_parse_with_units_and_bounds() -> None:
    assert LatencySpec.parse("fixed:500ms") == LatencySpec("fixed", 500.0)
    seed = LatencySpec.parse("lognormal:mean=2.6s,min=1s,max=20s")
    assert (seed.kind, seed.mean_ms, seed.min_ms, seed.max_ms, seed.sigma) == (
        "lognormal",
        2600.0,
        1000.0,
        20000.0,
        0.8,
    )
    assert seed.spark_conf()["spark.hadoop.checkpointexperience.latency.mean.ms"] == "2600.0"
    for bad in (
        "slow",
        "fixed:fast",
        "lognormal:min=1s",
        "lognormal:mean=30s,max=20s",
        "fixed:2s@offsets",
    ):
        with pytest.raises(CheckpointLatencyError):
            LatencySpec.parse(bad)


def test_state_only_latency_is_said_to_the_file_manager() -> None:
    only = "spark.hadoop.checkpointexperience.latency.only"
    assert LatencySpec.parse("fixed:2s@state") == LatencySpec("fixed", 2000.0, only="state")
    assert LatencySpec.parse("fixed:2s@state").spark_conf()[only] == "state"
    assert LatencySpec.parse("fixed:2s").spark_conf()[only] == ""


def test_the_class_is_compiled_once_into_a_jar_and_kept(tmp_path: Path) -> None:
    classes = SlowCheckpointClasses(tmp_path)
    legacy = classes.jar.with_suffix("")  # where earlier versions kept the class folder
    (legacy / "checkpointexperience").mkdir(parents=True)
    jar = classes.ensure()
    assert zipfile.ZipFile(jar).namelist() == [
        "checkpointexperience/SlowCheckpointFileManager.class"
    ]
    stamp = jar.stat().st_mtime_ns
    assert SlowCheckpointClasses(tmp_path).ensure() == jar
    assert jar.stat().st_mtime_ns == stamp
    assert not legacy.exists() and [p.name for p in tmp_path.iterdir()] == [jar.name]


@pytest.mark.spark
def test_spark_reports_the_slow_state_writes_in_its_own_durations(
    embedded_broker, tmp_path: Path
) -> None:
    """With @state the state store's .delta waits (inside addBatch) and offsets/N and commits/N
    do not; every file waiting is slow-checkpoint's own check (its walCommit durations)."""
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    settings = SparkAppSettings(
        bootstrap_servers=bootstrap,
        checkpoint=CheckpointPlace(folder=tmp_path / "cp"),
        log_dir=tmp_path / "log",
        checkpoint_latency="fixed:700ms@state",
        class_cache_dir=tmp_path / "cache",
    )
    spark_log = tmp_path / "log" / "spark.log"
    durations = re.compile(r"batch \d+ durations \(ms\): (\{.*\})")
    with AppProcess(tmp_path, settings.to_argv()) as app:
        for batch in range(3):
            send_counter(bootstrap, range(batch * 3 + 1, batch * 3 + 4))
            wait_until(
                lambda b=batch: (
                    spark_log.exists() and len(durations.findall(spark_log.read_text())) > b
                ),
                600,
                f"batch {batch}",
                app,
            )
        assert app.terminate() == 0, app.output_tail()
    seen = [json.loads(text) for text in durations.findall(spark_log.read_text())]
    # One .delta per batch (one shuffle partition) waits in addBatch; offsets/N (walCommit) and
    # commits/N (commitOffsets) are written at a local disk's speed.
    assert all(d["addBatch"] >= 700 for d in seen), seen
    assert all(d["walCommit"] < 700 and d["commitOffsets"] < 700 for d in seen), seen
