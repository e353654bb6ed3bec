"""Where the embedded broker knowingly differs from Apache Kafka, each shown by a test.

Every test asserts what Apache Kafka does and runs on both brokers (`kafka_broker`). On the
embedded broker it is marked xfail(strict=True): it must fail there, so the day the difference
disappears the test fails and the list in docs/broker.md ("Known differences") is corrected.
"""

from __future__ import annotations

import pytest
from kafka.admin import NewTopic
from kafka.errors import InvalidConfigurationError

from tests.kafka_app.broker.broker_helpers import admin


def known_difference(request: pytest.FixtureRequest, kind: str, why: str) -> None:
    if kind == "embedded":
        request.applymarker(pytest.mark.xfail(strict=True, reason=why))


def test_topic_segment_bytes_below_one_mib_is_refused(kafka_broker, request: pytest.FixtureRequest) -> None:
    """Kafka 4.1+ (KAFKA-19080) refuses a topic's segment.bytes below 1 MiB; the embedded broker
    keeps accepting 14 bytes and more, because tiny segments make retention visible in a demo."""
    known_difference(request, kafka_broker.kind, "the embedded broker accepts segment.bytes >= 14")
    client = admin(kafka_broker.bootstrap_servers)
    try:
        with pytest.raises(InvalidConfigurationError):
            client.create_topics([NewTopic("tiny-segments", 1, 1, topic_configs={"segment.bytes": "1000"})])
    finally:
        client.close()
