"""The State Data Source reader on real checkpoints: the project's two counters run for three
batches (a file source, `availableNow`) on HDFS, on RocksDB with changelog checkpointing and
format 2, on RocksDB without changelogs, and with transformWithState; then what inspect's
`--state-source` reports is checked against what the batches did.

One Spark session in this process for all of them (marked `spark`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from spark_app.checkpoint.state_data_source import (
    BatchChange,
    StateReport,
    _ask_spark,
    reader_settings,
    store_layout,
)
from spark_app.runtime.state_store import CHANGELOG_CONF, FORMAT_CONF, state_store_conf
from spark_app.settings import SparkAppSettings

pytestmark = pytest.mark.spark

INPUT_SCHEMA = "topic string, partition int, offset bigint, key string, value string"


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from spark_app.runtime.session import SparkSessionResource

    log = tmp_path_factory.mktemp("log")
    with SparkSessionResource(
        SparkAppSettings(log_dir=log, master="local[1]", class_cache_dir=None)
    ) as session:
        yield session


def run_three_batches(spark: Any, folder: Path, settings: SparkAppSettings) -> Path:
    """Three batches of three messages each through the app's counter; the checkpoint."""
    from spark_app.query.count_query import CountQuery

    # One session for every test: what the previous test set must not leak into this one.
    spark.conf.unset(CHANGELOG_CONF)
    spark.conf.unset(FORMAT_CONF)
    for key, value in state_store_conf(settings).items():
        spark.conf.set(key, value)
    source, checkpoint = folder / "in", folder / "checkpoint"
    source.mkdir(parents=True)
    for batch in range(3):
        rows = [
            {
                "topic": "Experience",
                "partition": 0,
                "offset": 3 * batch + i,
                "key": str(3 * batch + i + 1),
                "value": str(3 * batch + i + 1),
            }
            for i in range(3)
        ]
        (source / f"{batch}.json").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        records = spark.readStream.schema(INPUT_SCHEMA).json(str(source))
        query = (
            CountQuery(settings)
            .build(records)
            .writeStream.outputMode(CountQuery.OUTPUT_MODE)
            .foreachBatch(lambda frame, _: frame.count())
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        assert query.exception() is None
    return checkpoint


def report_for(spark: Any, tmp_path: Path, **options: Any) -> StateReport:
    """Run, then read as `inspect --state-source` does: on a session holding only what
    reader_settings takes from the checkpoint (not the confs the run was started with)."""
    checkpoint = run_three_batches(spark, tmp_path, SparkAppSettings(**options))
    spark.conf.unset(CHANGELOG_CONF)
    spark.conf.unset(FORMAT_CONF)
    for key, value in state_store_conf(reader_settings(checkpoint, tmp_path)).items():
        spark.conf.set(key, value)
    return _ask_spark(spark, str(checkpoint.resolve()), store_layout(checkpoint))


COUNTS = [BatchChange(0, "update", 3), BatchChange(1, "update", 6), BatchChange(2, "update", 9)]


def test_hdfs_state_its_change_feed_and_the_deltas_the_next_batch_loads(spark, tmp_path) -> None:
    report = report_for(spark, tmp_path)
    assert (report.operator, report.min_batch, report.max_batch) == ("applyInPandasWithState", 0, 2)
    assert (report.count, report.count_batch, report.changes) == (9, 2, COUNTS)
    layout = report.layout
    assert (layout.kind, layout.format_version, layout.changelog) == ("hdfs", 1, False)
    assert (layout.next_batch, layout.next_files) == (3, ["1.delta", "2.delta", "3.delta"])
    assert "count in state after batch 2: 9" in report.lines()


def test_rocksdb_changelog_format_2_names_files_by_the_committed_ids(spark, tmp_path) -> None:
    report = report_for(
        spark, tmp_path, state_store="rocksdb", changelog_checkpointing=True, checkpoint_format=2
    )
    assert (report.count, report.changes) == (9, COUNTS)
    layout = report.layout
    assert (layout.kind, layout.format_version, layout.changelog) == ("rocksdb", 2, True)
    [state_id] = layout.state_ids
    assert layout.next_files[-1] == f"3_{state_id}.changelog" and len(layout.next_files) == 3
    assert report.lines()[0].startswith(
        "state store: rocksdb, changelog checkpointing; checkpoint format 2 (state file ids"
    )


def test_rocksdb_without_changelogs_has_no_change_feed_and_spark_says_why(spark, tmp_path) -> None:
    report = report_for(spark, tmp_path, state_store="rocksdb")
    assert report.count == 9 and report.changes == []
    assert report.layout.next_files == ["3.zip"]
    [note] = report.notes
    assert note.startswith("change feed not readable: ") and "[" in note, note


def test_transform_with_state_reads_its_count_variable(spark, tmp_path) -> None:
    report = report_for(
        spark,
        tmp_path,
        state_store="rocksdb",
        changelog_checkpointing=True,
        counter="transform-with-state",
    )
    assert report.operator == "transformWithStateInPandasExec"
    assert (report.count, report.changes) == (9, COUNTS)
