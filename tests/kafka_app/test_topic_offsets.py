"""The topic's offset window as the producer reads it after each send, on the embedded broker:
a read that outlives a broker gone for longer than one read's timeout (a leader killed, its
successor not yet elected) waits for it when asked to, instead of ending the producer."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic

from kafka_app.broker import EmbeddedBroker
from kafka_app.topic_offsets import TopicOffsets
from tests.kafka_app.broker.broker_helpers import quick_broker_settings

pytestmark = pytest.mark.e2e  # a broker away for 12 s: longer than the fast suite allows

GONE_SEC = 12.0  # from the patient read's start: longer than one read's 10 s timeout


def test_a_window_read_with_patience_outlasts_a_broker_gone_longer_than_its_timeout(
    tmp_path: Path, free_port: int
) -> None:
    settings = quick_broker_settings(free_port, tmp_path / "kafka-data")
    broker = EmbeddedBroker(settings)
    broker.start()
    back = threading.Event()
    restart = threading.Timer(GONE_SEC, lambda: (broker.start(), back.set()))
    try:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap_servers)
        admin.create_topics([NewTopic("Experience", num_partitions=1, replication_factor=1)])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
        producer.send("Experience", b"1").get(timeout=10)
        producer.close()
        with TopicOffsets(broker.bootstrap_servers, "Experience", partitions=1) as offsets:
            assert offsets.window().latest == 1
            broker.stop()  # gone for GONE_SEC: a read without patience gives up after 10 s
            restart.start()
            started = time.monotonic()
            window = offsets.window(patience_sec=30)
            assert back.is_set() and window.latest == 1, window
            assert GONE_SEC <= time.monotonic() - started < 30  # one read's timeout passed in it
    finally:
        restart.cancel()
        restart.join()
        broker.stop()
