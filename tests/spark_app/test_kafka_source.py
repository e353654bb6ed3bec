"""The Kafka source's planning and reading against the embedded broker, without starting Spark.

The reader's methods are plain Python; Spark calls them in its workers. Calling them directly
checks the contract that matters for checkpoints: exact, repeatable ranges, limits, data loss.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa
import pytest
from kafka import KafkaProducer
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

from spark_app.errors import DataLossError, KafkaUnreachableError
from spark_app.kafka_client import TopicClient
from spark_app.kafka_source import KafkaStreamReader, SourceOptions, split_limit
from spark_app.offsets import TopicPartition
from tests.spark_app.kafka_helpers import create_topic, delete_records, send_counter

TP0, TP1 = TopicPartition("Experience", 0), TopicPartition("Experience", 1)


def reader(bootstrap: str, tmp_path: Path, **options: object) -> KafkaStreamReader:
    return KafkaStreamReader(SourceOptions(bootstrap_servers=bootstrap, topic="Experience",
                                           log_file=str(tmp_path / "spark.log"), **options))


def rows_of(source: KafkaStreamReader, start: dict, end: dict) -> list[dict]:
    out: list[dict] = []
    for partition in source.partitions(start, end):
        for batch in source.read(partition):
            out.extend(pa.Table.from_batches([batch]).to_pylist())
    return out


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
    assert [r["value"] for r in first] == [str(n) for n in range(11, 51)]
    assert rows_of(source, start, middle)[6]["key"] == "-7"
    source.stop()


def test_keys_and_values_are_text_with_invalid_bytes_replaced(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    producer.send("Experience", key="7".encode(), value="héllo".encode())
    producer.send("Experience", key=b"\xff8", value=None)
    producer.send("Experience", key=None, value=b"9")
    producer.flush(timeout=30)
    producer.close()
    source = reader(bootstrap, tmp_path)

    rows = rows_of(source, {"Experience": {"0": 0}}, {"Experience": {"0": 3}})

    assert [(r["key"], r["value"]) for r in rows] == [("7", "héllo"), ("\ufffd8", None), (None, "9")]
    assert {(r["topic"], r["partition"]) for r in rows} == {("Experience", 0)}
    source.stop()


def test_latest_starting_offsets_and_limit_split_across_partitions(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap, partitions=2)
    send_counter(bootstrap, range(1, 31), partition=0)
    send_counter(bootstrap, range(31, 41), partition=1)
    assert reader(bootstrap, tmp_path, starting_offsets="latest").initialOffset() == \
        {"Experience": {"0": 30, "1": 10}}
    source = reader(bootstrap, tmp_path, max_offsets_per_trigger=8)
    assert isinstance(source.getDefaultReadLimit(), ReadMaxRows)
    start = source.initialOffset()
    end = source.latestOffset(start, ReadMaxRows(8))
    assert end == {"Experience": {"0": 6, "1": 2}}
    assert len(source.partitions(start, end)) == 2
    assert source.reportLatestOffset() == {"Experience": {"0": 30, "1": 10}}
    # Spark may ask for everything even with a limit set (e.g. Trigger.AvailableNow).
    assert source.latestOffset(start, ReadAllAvailable()) == {"Experience": {"0": 30, "1": 10}}
    source.stop()


def test_split_limit_is_proportional_and_exact() -> None:
    shares = split_limit({TP0: 100, TP1: 1}, 10)
    assert sum(shares.values()) == 10 and shares[TP0] >= 9
    assert split_limit({TP0: 3, TP1: 4}, 100) == {TP0: 3, TP1: 4}


def test_lost_offsets_fail_with_the_range_when_fail_on_data_loss(embedded_broker, tmp_path: Path) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 21))
    source = reader(bootstrap, tmp_path)
    start = {"Experience": {"0": 5}}
    end = source.latestOffset(start, ReadAllAvailable())
    delete_records(bootstrap, 12)
    with pytest.raises(DataLossError) as planning:
        source.latestOffset(start, ReadAllAvailable())
    assert "[5, 12)" in str(planning.value) and "Experience-0" in str(planning.value)
    # A batch planned before the deletion (the pending batch after a restart) fails on read.
    with pytest.raises(DataLossError) as reading:
        rows_of(source, start, end)
    message = str(reading.value)
    assert message.startswith("KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE")
    assert "[5, 12)" in message and "--fail-on-data-loss false" in message
    source.stop()


def test_lost_offsets_are_skipped_with_a_warning_otherwise(embedded_broker, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 21))
    delete_records(bootstrap, 12)
    source = reader(bootstrap, tmp_path, fail_on_data_loss=False)
    start = {"Experience": {"0": 5}}
    end = source.latestOffset(start, ReadAllAvailable())
    assert end == {"Experience": {"0": 20}}
    assert [r["offset"] for r in rows_of(source, start, end)] == list(range(12, 20))
    assert "[5, 12)" in capsys.readouterr().err
    assert "skipping 7 messages" in (tmp_path / "spark.log").read_text()
    # Never rewind: a start beyond Kafka's end (topic recreated) stays put.
    assert source.latestOffset({"Experience": {"0": 99}}, ReadAllAvailable()) == {"Experience": {"0": 99}}
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
    with pytest.raises(DataLossError, match=rf"\[0, {earliest}\) of topic partition Experience-0"):
        source.latestOffset(start, ReadAllAvailable())
    skipping = reader(bootstrap, tmp_path, fail_on_data_loss=False)
    end = skipping.latestOffset(start, ReadAllAvailable())
    # Retention keeps deleting while we read, so the rows may even be none: never older ones.
    assert all(r["offset"] >= earliest for r in rows_of(skipping, start, end))
    assert "data loss: offsets [0, " in (tmp_path / "spark.log").read_text()
    source.stop()
    skipping.stop()
