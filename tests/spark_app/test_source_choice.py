"""`--source`: our Kafka source by default, Spark's own connector one flag away.

The connector comes from Maven Central, which this machine cannot reach: there the app must
say so in one line within seconds, not hang in Spark's dependency resolver.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from spark_app.cli import run_cli
from spark_app.connector import MAVEN_CENTRAL, connector_package, source_format, source_options
from spark_app.settings import SparkAppSettings
from spark_app.source.options import SourceOptions


def test_both_sources_get_the_same_query_options(tmp_path: Path) -> None:
    ours = SparkAppSettings(checkpoint_dir=tmp_path / "cp", max_offsets_per_trigger=100)
    theirs = SparkAppSettings(checkpoint_dir=tmp_path / "cp", max_offsets_per_trigger=100,
                              source="spark-kafka")
    assert (source_format(ours), source_format(theirs)) == ("experience-kafka", "kafka")
    shared = {"kafka.bootstrap.servers": "127.0.0.1:9092", "subscribe": "Experience",
              "startingOffsets": "earliest", "failOnDataLoss": "true", "maxOffsetsPerTrigger": "100"}
    assert source_options(theirs) == shared
    assert {k: v for k, v in source_options(ours).items() if k in shared} == shared
    # Ours adds only names the connector ignores; and they parse as the connector's options.
    assert set(source_options(ours)) - set(shared) == {"checkpointLocation", "logFile"}
    # Both option sets are valid connector options, and ours carry the checkpoint to the source.
    assert SourceOptions.parse(source_options(theirs)).checkpoint_location is None
    assert SourceOptions.parse(source_options(ours)).checkpoint_location == str((tmp_path / "cp").resolve())


def test_the_connector_package_follows_the_running_spark() -> None:
    assert connector_package("4.1.4") == "org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.4"


def test_without_maven_the_real_connector_fails_fast_in_one_line(
        embedded_broker, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no Ivy cache that could hold the jar
    started = time.monotonic()
    code = run_cli(["--source", "spark-kafka", "--bootstrap-servers",
                    embedded_broker.bootstrap_servers, "--checkpoint-dir", str(tmp_path / "cp"),
                    "--log-dir", str(tmp_path / "log")])
    took = time.monotonic() - started
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("spark_app: KAFKA_CONNECTOR_UNAVAILABLE: Spark's Kafka connector "
                          "org.apache.spark:spark-sql-kafka-0-10_2.13:")
    assert "`--source python` (the default) needs nothing from the network" in err
    assert took < 15, f"took {took:.1f} s"
    assert MAVEN_CENTRAL.startswith("https://")


def test_offsets_from_a_group_need_our_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["--source", "spark-kafka", "--offsets-from-group", "g", "--checkpoint-dir",
                    str(tmp_path / "cp"), "--log-dir", str(tmp_path / "log")])
    assert code == 2 and "--offsets-from-group needs --source python" in capsys.readouterr().err
