"""The retention scheduler runs storage's rules on the broker loop and says in words what went."""

from __future__ import annotations

import logging
import time

from kafka import KafkaProducer

from kafka_app.broker import BrokerSettings, EmbeddedBroker
from kafka_app.broker.storage.retention import RetentionEvent
from kafka_app.broker.storage.retention_schedule import describe_event
from kafka_app.broker.storage.topic_config import TopicConfig
from tests.kafka_app.broker.broker_helpers import create_topic, wait_until


def test_event_in_words() -> None:
    event = RetentionEvent(
        topic="Experience",
        partition=0,
        reason="retention.ms",
        deleted_segments=[0, 17, 30],
        old_log_start_offset=0,
        new_log_start_offset=42,
    )
    text = describe_event(event, TopicConfig.from_strings({"retention.ms": "15000"}))
    assert text == (
        "Deleted 3 segment(s) (offsets 0..41) of Experience-0 (retention.ms=15000 exceeded); "
        "log start offset 0 -> 42"
    )


def test_scheduler_deletes_expired_segments_and_logs_it(tmp_path, free_port, caplog) -> None:
    caplog.set_level(logging.INFO, logger="kafka_app.broker.storage.retention_schedule")
    settings = BrokerSettings(
        port=free_port, data_dir=tmp_path, retention_check_sec=0.2, retention_initial_delay_sec=0.1
    )
    with EmbeddedBroker(settings) as broker:
        create_topic(
            broker.bootstrap_servers,
            "aging",
            configs={"retention.ms": "30000", "segment.ms": "100"},
        )
        a_minute_ago = int(time.time() * 1000) - 60_000
        # The five old records go in one batch, so one retention pass removes them all at once.
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, linger_ms=60_000)
        for i in range(5):
            producer.send("aging", value=b"old", timestamp_ms=a_minute_ago + i)
        producer.flush(10)
        producer.send("aging", value=b"fresh")
        producer.flush(10)
        producer.close(5)
        wait_until(lambda: "of aging-0" in caplog.text, 10, "a retention log line")
    assert (
        "(offsets 0..4) of aging-0 (retention.ms=30000 exceeded); log start offset 0 -> 5"
        in caplog.text
    )
