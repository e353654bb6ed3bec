"""`--source`: Spark's own connector by default, our Kafka source with --offline (or --source python).

Fetching the connector, and failing to, is tested in test_connector_jars.py.
"""

from __future__ import annotations

from pathlib import Path

from checkpoint_stores import CheckpointPlace
from spark_app.query.source_choice import connector_package, source_format, source_options
from spark_app.settings import SparkAppSettings
from spark_app.source.options import SourceOptions


def test_both_sources_get_the_same_query_options(tmp_path: Path) -> None:
    ours = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "cp"),
        max_offsets_per_trigger=100,
        source="python",
    )
    theirs = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "cp"),
        max_offsets_per_trigger=100,
        source="spark-kafka",
    )
    assert (source_format(ours), source_format(theirs)) == ("experience-kafka", "kafka")
    shared = {
        "kafka.bootstrap.servers": "127.0.0.1:9092",
        "subscribe": "Experience",
        "startingOffsets": "earliest",
        "failOnDataLoss": "true",
        "maxOffsetsPerTrigger": "100",
    }
    assert source_options(theirs) == shared
    assert {k: v for k, v in source_options(ours).items() if k in shared} == shared
    # Ours adds only names the connector ignores; and they parse as the connector's options.
    assert set(source_options(ours)) - set(shared) == {"checkpointLocation", "logFile"}
    # Both option sets are valid connector options, and ours carry the checkpoint to the source.
    assert SourceOptions.parse(source_options(theirs)).checkpoint_location is None
    assert SourceOptions.parse(source_options(ours)).checkpoint_location == str(
        (tmp_path / "cp").resolve()
    )


def test_the_connector_package_follows_the_running_spark() -> None:
    assert connector_package("4.1.4") == "org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.4"
