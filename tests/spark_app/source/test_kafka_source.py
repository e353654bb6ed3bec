"""The Kafka source's planning and reading against the embedded broker, without starting Spark.

The reader's methods are plain Python; Spark calls them in its workers. Calling them directly
checks the contract that matters for checkpoints: exact, repeatable ranges, limits, data loss.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable

from spark_app.errors import CouldNotReadOffsetRangeError, KafkaUnreachableError
from spark_app.offsets import TopicPartition
from spark_app.source.kafka_client import TopicClient
from spark_app.source.kafka_source import KafkaStreamReader
from spark_app.source.options import SourceOptions
from tests.spark_app.kafka_helpers import create_topic, rows_of, send_counter, set_retention

TP0, TP1 = TopicPartition("Experience", 0), TopicPartition("Experience", 1)


def reader(bootstrap: str, tmp_path: Path, **options: str) -> KafkaStreamReader:
    return KafkaStreamReader(
        SourceOptions.parse(
            {
                "kafka.bootstrap.servers": bootstrap,
                "subscribe": "Experience",
                "startingOffsets": "earliest",
                "logFile": str(tmp_path / "spark.log"),
                **options,
            }
        )
    )


def test_replaying_a_range_yields_the_same_rows(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 51), negative=[7])
    source = reader(bootstrap, tmp_path)
    start = source.initialOffset()
    assert start == {"Experience": {"0": 0}}
    end = source.latestOffset(start, ReadAllAvailable())
    assert end == {"Experience": {"0": 50}}
    middle = {"Experience": {"0": 10}}
    first, again = rows_of(source, middle, end), rows_of(source, middle, end)
    assert first == again
    assert [r["offset"] for r in first] == list(range(10, 50))
    assert [r["value"] for r in first] == [str(n).encode() for n in range(11, 51)]
    assert rows_of(source, start, middle)[6]["key"] == b"-7"
    source.stop()


def test_unreachable_kafka_names_the_address(free_port: int) -> None:
    with pytest.raises(KafkaUnreachableError, match=f"127.0.0.1:{free_port}.*python -m kafka_app"):
        TopicClient(f"127.0.0.1:{free_port}", timeout_sec=2).start().partitions("Experience")


def test_offsets_aged_out_by_real_retention_are_data_loss(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap, configs={"retention.ms": "300", "segment.ms": "100"})
    send_counter(bootstrap, range(1, 11))
    source = reader(bootstrap, tmp_path)
    start = {"Experience": {"0": 0}}  # a checkpoint that read nothing yet
    deadline = time.monotonic() + 60
    earliest = 0
    with TopicClient(bootstrap) as kafka:
        while earliest == 0 and time.monotonic() < deadline:
            send_counter(bootstrap, [11])  # a new message rolls the aged segment
            earliest = kafka.earliest("Experience")[TP0]
            time.sleep(0.2)
    assert earliest >= 10, "retention never deleted the first segment"
    end = source.latestOffset(start, ReadAllAvailable())  # planning succeeds, as in Spark
    with pytest.raises(
        CouldNotReadOffsetRangeError,
        match=r"offset \[0, \d+\) for topic partition "
        r"Experience-0",
    ):
        rows_of(source, start, end)
    # Retention stops deleting, and two messages arrive that it can no longer touch: the
    # skipping read must return rows, every one from an offset retention kept.
    set_retention(bootstrap, "3600000")
    send_counter(bootstrap, [12, 13])
    skipping = reader(bootstrap, tmp_path, failOnDataLoss="false")
    end = skipping.latestOffset(start, ReadAllAvailable())
    offsets = [r["offset"] for r in rows_of(skipping, start, end)]
    assert len(offsets) >= 2 and offsets[0] >= earliest, offsets
    assert offsets == list(range(offsets[0], end["Experience"]["0"]))
    assert (
        "Some data may be lost. Recovering from the earliest offset"
        in (tmp_path / "spark.log").read_text()
    )
    source.stop()
    skipping.stop()


def test_available_now_plans_capped_batches_up_to_the_offsets_at_its_start(
    embedded_broker, tmp_path: Path
) -> None:
    """Trigger.AvailableNow as the connector runs it: the target is fixed when Spark calls
    prepareForTriggerAvailableNow, later messages are not read, the cap still applies."""
    from pyspark.sql.streaming.datasource import ReadMaxRows, SupportsTriggerAvailableNow

    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 26))
    source = reader(
        bootstrap, tmp_path, maxOffsetsPerTrigger="10", checkpointLocation=str(tmp_path / "cp")
    )
    assert isinstance(source, SupportsTriggerAvailableNow)
    start = source.initialOffset()
    source.prepareForTriggerAvailableNow()
    send_counter(bootstrap, range(26, 31))  # after the start: not part of this backfill
    ends, position = [], start
    while (end := source.latestOffset(position, ReadMaxRows(10))) != position:
        ends.append(end["Experience"]["0"])
        position = end
    assert ends == [10, 20, 25]
    source.stop()
