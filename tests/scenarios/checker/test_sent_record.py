"""The record of what was sent: the producer's log read back with the producer's own line, and the
topic read with kafka-python from the embedded broker over a real socket."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from kafka import KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

from kafka_app.logs import setup_logging
from kafka_app.message_line import PRODUCER_LOGGER, ProducerLine, format_message, parse_log_line
from kafka_app.topic_offsets import OffsetWindow
from launch.kafka import KafkaSide
from launch.ports import free_port
from scenarios.checker.sent_record import (
    SentRecord,
    SentRecordUnreadable,
    read_producer_log,
    read_topic,
    sent_from_log_lines,
    sent_from_values,
    union,
)
from scenarios.checker.verify import ValueRange
from scenarios.cli import run_cli
from scenarios.engine.settings import PROJECT_ROOT
from tests.scenarios.more_helpers import idle_stage, write_output

WINDOW = OffsetWindow(earliest=89, latest=109, per_partition=((89, 109),))


def test_the_producers_log_line_reads_back_through_the_real_logging_setup(tmp_path: Path) -> None:
    path = setup_logging(tmp_path)
    logger = logging.getLogger(PRODUCER_LOGGER)
    logger.info("%s", format_message("Experience", WINDOW, -110, 110))
    logger.info("producer started: first value: 1; log: %s", path)
    logging.getLogger("kafka_app.broker").info("%s", format_message("Experience", WINDOW, 7, 7))
    for handler in logging.getLogger("kafka_app").handlers:
        handler.flush()
    lines = path.read_text().splitlines()
    assert [parse_log_line(line) for line in lines] == [
        ProducerLine("Experience", 89, 109, -110, 110),
        None,
        None,
    ]


def test_the_seeds_padded_offsets_are_read_too() -> None:
    line = "[INFO] [2016-01-08 16:18:10,025] [kafka_app.producer]: Experience [   0:  12]: 12 -> 12"
    assert parse_log_line(line) == ProducerLine("Experience", 0, 12, 12, 12)


def test_log_lines_of_other_topics_are_left_out() -> None:
    prefix = "[INFO] [2026-11-23 02:31:33,163] [kafka_app.producer]: "
    lines = [
        f"{prefix}{format_message(t, WINDOW, v, v)}"
        for t, v in [("Experience", 1), ("Other", 2), ("Experience", 3)]
    ]
    assert sent_from_log_lines(lines, "Experience", "x").values == (1, 3)
    assert sent_from_log_lines(lines, None, "x").values == (1, 2, 3)


def test_topic_values_that_are_not_whole_numbers_are_foreign() -> None:
    record = sent_from_values([b"1", b"-2", b"hi", None, b"3", b"1.5"], "t", deleted=4)
    assert (record.values, record.foreign, record.deleted) == ((1, -2, 3), 3, 4)
    assert not record.complete and record.messages == 6


def test_union_keeps_what_either_record_holds() -> None:
    logged = SentRecord("log", (1, 2, 3, 4))
    held = SentRecord("topic", (3, 4, 5), foreign=1, deleted=2)
    merged = union(logged, held)
    assert merged.values == (1, 2, 3, 4, 5) and merged.complete and merged.foreign == 1


def test_an_empty_or_missing_producer_log_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(SentRecordUnreadable, match="cannot read the producer's log"):
        read_producer_log(tmp_path / "kafka.log", "Experience")
    (tmp_path / "kafka.log").write_text("[INFO] [x] [kafka_app.broker]: listening\n")
    with pytest.raises(SentRecordUnreadable, match="has no producer line"):
        read_producer_log(tmp_path / "kafka.log", "Experience")


def _produce(bootstrap: str, topic: str, values: list[bytes], partitions: int = 1) -> None:
    with KafkaAdminClient(bootstrap_servers=bootstrap) as admin:
        admin.create_topics([NewTopic(topic, partitions, 1)])
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    for n, value in enumerate(values):
        producer.send(topic, value=value, partition=n % partitions).get(timeout=10)
    producer.close()


def test_read_topic_reads_every_partition_and_counts_what_retention_deleted(
    embedded_broker: object,
) -> None:
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    _produce(
        bootstrap, "Experience", [str(v).encode() for v in range(1, 9)] + [b"kcat"], partitions=2
    )
    record = read_topic(bootstrap, "Experience")
    assert sorted(record.values) == list(range(1, 9)) and record.foreign == 1 and record.complete
    # What retention does, asked for directly: partition 0 loses its first two records (1, 3).
    with KafkaAdminClient(bootstrap_servers=bootstrap) as admin:
        admin.delete_records({TopicPartition("Experience", 0): 2})
    cut = read_topic(bootstrap, "Experience")
    assert sorted(cut.values) == [2, 4, 5, 6, 7, 8] and cut.deleted == 2 and not cut.complete


def test_read_topic_says_when_there_is_no_such_topic_or_no_kafka(embedded_broker: object) -> None:
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    with pytest.raises(SentRecordUnreadable, match="has no topic Nowhere"):
        read_topic(bootstrap, "Nowhere")
    with pytest.raises(SentRecordUnreadable, match="cannot connect to Kafka"):
        # Not the free_port fixture: within one test it is the broker's own port.
        read_topic(f"127.0.0.1:{free_port()}", "Experience")


def test_stage_verify_sent_counts_a_message_the_producer_never_logged(
    tmp_path: Path, embedded_broker: object
) -> None:
    # The producer was stopped after Kafka acknowledged 5 and before it logged the line.
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    _produce(bootstrap, "Experience", [str(v).encode() for v in range(1, 6)])
    stage = idle_stage(tmp_path)
    stage.folders.log.mkdir(parents=True)
    prefix = "[INFO] [2026-11-23 02:31:33,163] [kafka_app.producer]: "
    (stage.folders.log / "kafka.log").write_text(
        "".join(f"{prefix}{format_message('Experience', WINDOW, v, v)}\n" for v in range(1, 5))
    )
    # Kafka as a started stage knows it, without a producer of the stage's own.
    stage.kafka._side = KafkaSide(
        stage.group,
        stage.folders,
        stage.timings,
        topic="Experience",
        retention_sec=3600,
        bootstrap_servers=bootstrap,
    )
    write_output(stage.folders.output_log, range(1, 5))
    report = stage.output.verify_sent()
    assert report.missing == (ValueRange(5, 5),) and not report.ok
    write_output(stage.folders.output_log, range(1, 6))
    assert stage.output.verify_sent().ok


def test_a_real_producer_run_is_the_record_the_cli_checks(
    tmp_path: Path, embedded_broker: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """The producer app as a user runs it sends 1..5; the Spark app's log lost the last one."""
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_app",
            "--bootstrap-servers",
            bootstrap,
            "--count",
            "5",
            "--interval-sec",
            "0.05",
            "--log-dir",
            str(tmp_path / "log"),
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    output = tmp_path / "streaming-output.log"
    write_output(output, range(1, 5))
    assert run_cli(["verify", str(output)]) == 0
    capsys.readouterr()
    for sent in (
        [str(tmp_path / "log" / "kafka.log")],
        ["topic", "--bootstrap-servers", bootstrap],
    ):
        assert run_cli(["verify", str(output), "--json", "--sent", *sent]) == 1
        report = json.loads(capsys.readouterr().out)
        assert report["missing"] == [[5, 5]] and report["sent"]["messages"] == 5
