"""--offsets-from-group without Spark: where a query starts, and the source's commits to a real
consumer group on the embedded broker (seed 000's offsets kept outside Spark)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable

from checkpoint_stores import CheckpointPlace
from spark_app.cli import main_parser, settings_from_args
from spark_app.offsets import TopicPartition
from spark_app.query.connector_group import BatchStartCommitter
from spark_app.query.group_offsets import choose_start, group_start_in
from spark_app.query.preflight import preflight
from spark_app.settings import SparkAppSettings
from spark_app.source.kafka_client import GroupOffsets
from spark_app.source.kafka_source import KafkaStreamReader
from spark_app.source.offset_ranges import start_offsets_to_commit
from spark_app.source.options import SourceOptions
from tests.spark_app.checkpoint.test_reader import make_checkpoint
from tests.spark_app.kafka_helpers import create_topic, send_counter

TP0, TP1 = TopicPartition("Experience", 0), TopicPartition("Experience", 1)


def test_a_fresh_checkpoint_starts_from_the_group_offsets() -> None:
    choice = choose_start(
        "g",
        checkpoint_is_new=True,
        partitions=[TP0, TP1],
        committed={TP0: 42, TP1: 7},
        starting_offsets="latest",
    )
    assert choice.origin == "group"
    assert json.loads(choice.spec) == {"Experience": {"0": 42, "1": 7}}
    assert "consumer group g" in choice.message and "Experience-0@42" in choice.message


def test_the_start_line_reads_back_as_the_offsets_it_names() -> None:
    tp = TopicPartition("Experience-manual-offsets-17", 0)
    choice = choose_start(
        "spark-app-x",
        checkpoint_is_new=True,
        partitions=[tp, TP1],
        committed={tp: 12},
        starting_offsets="latest",
    )
    output = f"WARNING: Using incubator modules\n{choice.message}\nStreaming …\n"
    assert group_start_in(output, "spark-app-x") == {tp: 12}
    assert group_start_in(output, "another-group") is None
    assert group_start_in(output.replace("starting from", "resuming from"), "spark-app-x") is None


def test_a_partition_the_group_never_saw_follows_starting_offsets() -> None:
    latest = choose_start(
        "g",
        checkpoint_is_new=True,
        partitions=[TP0, TP1],
        committed={TP0: 42},
        starting_offsets="latest",
    )
    assert json.loads(latest.spec) == {"Experience": {"0": 42, "1": -1}}
    assert "Experience-1 from --starting-offsets latest" in latest.message
    given = choose_start(
        "g",
        checkpoint_is_new=True,
        partitions=[TP0, TP1],
        committed={TP0: 42},
        starting_offsets='{"Experience":{"1":5}}',
    )
    assert json.loads(given.spec) == {"Experience": {"0": 42, "1": 5}}


def test_an_empty_group_falls_back_to_starting_offsets() -> None:
    choice = choose_start(
        "g",
        checkpoint_is_new=True,
        partitions=[TP0],
        committed={TopicPartition("Other", 0): 3},
        starting_offsets="earliest",
    )
    assert (choice.spec, choice.origin) == ("earliest", "starting-offsets")
    assert "no committed offsets" in choice.message


def test_an_existing_checkpoint_wins_and_says_so() -> None:
    choice = choose_start(
        "g",
        checkpoint_is_new=False,
        partitions=[TP0],
        committed={TP0: 42},
        starting_offsets="earliest",
    )
    assert (choice.spec, choice.origin) == ("earliest", "checkpoint")
    assert (
        "checkpoint already holds offsets" in choice.message and "Experience-0@42" in choice.message
    )


def test_the_start_of_a_batch_is_committed_for_every_partition_it_covers() -> None:
    # Experience-1 is new since the previous batch: the batch reads it from offset 0.
    assert start_offsets_to_commit({TP0: 10}, {TP0: 15, TP1: 3}) == {TP0: 10, TP1: 0}


def test_the_option_reaches_settings_and_the_source() -> None:
    s = settings_from_args(main_parser().parse_args(["--offsets-from-group", "blue"]))
    assert s.offsets_from_group == "blue"
    assert settings_from_args(main_parser().parse_args([])).offsets_from_group is None
    given = {"kafka.bootstrap.servers": "h:1", "subscribe": "Experience"}
    assert SourceOptions.parse({**given, "offsetsGroup": "blue"}).offsets_group == "blue"
    assert SourceOptions.parse(given).offsets_group is None


def test_an_empty_group_name_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main_parser().parse_args(["--offsets-from-group", " "])
    assert exit_.value.code == 2
    assert "expected a consumer group name" in capsys.readouterr().err


def test_planning_a_batch_commits_its_start_and_a_new_query_starts_there(
    embedded_broker, tmp_path: Path
) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 21))
    source = KafkaStreamReader(
        SourceOptions.parse(
            {
                "kafka.bootstrap.servers": bootstrap,
                "subscribe": "Experience",
                "startingOffsets": "earliest",
                "offsetsGroup": "manual",
                "logFile": str(tmp_path / "l"),
            }
        )
    )
    try:
        first_end = {"Experience": {"0": 12}}
        source.partitions(source.initialOffset(), first_end)
        with GroupOffsets(bootstrap, "manual") as group:
            assert group.committed([TP0]) == {TP0: 0}
        end = source.latestOffset(first_end, ReadAllAvailable())
        source.partitions(first_end, end)  # batch 1 planned: its start is stored, not its end
        with GroupOffsets(bootstrap, "manual") as group:
            assert group.committed([TP0]) == {TP0: 12}
            assert group.committed([TP1]) == {}
    finally:
        source.stop()
    settings = settings_from_args(
        main_parser().parse_args(
            [
                "--bootstrap-servers",
                bootstrap,
                "--checkpoint-dir",
                str(tmp_path / "fresh"),
                "--offline",
                "--offsets-from-group",
                "manual",
                "--starting-offsets",
                "latest",
            ]
        )
    )
    choice = preflight(settings)
    assert choice is not None and json.loads(choice.spec) == {"Experience": {"0": 12}}
    other = preflight(
        settings_from_args(
            main_parser().parse_args(
                [
                    "--bootstrap-servers",
                    bootstrap,
                    "--checkpoint-dir",
                    str(tmp_path / "fresh"),
                    "--offline",
                    "--offsets-from-group",
                    "nobody",
                    "--starting-offsets",
                    "latest",
                ]
            )
        )
    )
    assert other is not None and other.spec == "latest"


def test_on_the_connector_the_running_batch_commits_its_start_from_the_offset_log(
    embedded_broker, tmp_path: Path
) -> None:
    """Spark's connector commits nothing to Kafka; the app's foreachBatch commits the running
    batch's start (offsets/N-1's end) and only for the batch the offset log says is running."""
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    (tmp_path / "cp").mkdir()
    checkpoint = make_checkpoint(tmp_path / "cp", ends=[5, 12, 20], committed=2)  # batch 2 runs
    commit = BatchStartCommitter(
        SparkAppSettings(
            bootstrap_servers=bootstrap,
            checkpoint=CheckpointPlace(folder=checkpoint),
            offsets_from_group="conn",
        )
    )
    try:
        commit(1)  # not the batch the log says is running: nothing is committed
        with GroupOffsets(bootstrap, "conn") as group:
            assert group.committed([TP0]) == {}
        commit(2)
        with GroupOffsets(bootstrap, "conn") as group:
            assert group.committed([TP0]) == {TP0: 12}
    finally:
        commit.close()
    settings = settings_from_args(
        main_parser().parse_args(
            [
                "--bootstrap-servers",
                bootstrap,
                "--checkpoint-dir",
                str(tmp_path / "fresh"),
                "--offsets-from-group",
                "conn",
            ]
        )
    )
    assert settings.source == "spark-kafka"
    choice = preflight(settings)
    assert choice is not None and json.loads(choice.spec) == {"Experience": {"0": 12}}
