"""ensure_topic against the embedded broker: created with the settings, re-applied on a re-run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

from kafka_app.broker import EmbeddedBroker
from kafka_app.errors import TopicSetupFailed
from kafka_app.topic_setup import ensure_topic


@pytest.fixture
def admin(embedded_broker: EmbeddedBroker) -> Iterator[KafkaAdminClient]:
    client = KafkaAdminClient(bootstrap_servers=embedded_broker.bootstrap_servers)
    with client:
        yield client


def _topic_configs(admin: KafkaAdminClient, topic: str) -> dict[str, str]:
    described = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    return {name: entry["value"] for name, entry in described["topic"][topic].items()}


def test_new_topic_gets_the_settings(admin: KafkaAdminClient) -> None:
    state = ensure_topic(admin, "Experience", 2, {"retention.ms": "15000", "segment.ms": "1000"})
    assert state.created and state.partitions == 2
    configs = _topic_configs(admin, "Experience")
    assert configs["retention.ms"] == "15000" and configs["segment.ms"] == "1000"


def test_existing_topic_gets_the_new_settings_and_keeps_its_partitions(admin: KafkaAdminClient) -> None:
    ensure_topic(admin, "Experience", 3, {"retention.ms": "15000", "segment.ms": "1000"})
    state = ensure_topic(admin, "Experience", 1, {"retention.ms": "3600000", "segment.ms": "1000"})
    assert not state.created and state.partitions == 3
    assert _topic_configs(admin, "Experience")["retention.ms"] == "3600000"


def test_grow_adds_the_missing_partitions_and_says_from_how_many(admin: KafkaAdminClient) -> None:
    ensure_topic(admin, "Experience", 1, {"retention.ms": "15000"})
    state = ensure_topic(admin, "Experience", 3, {"retention.ms": "15000"}, grow=True)
    assert state.partitions == 3 and state.grown_from == 1 and not state.created
    again = ensure_topic(admin, "Experience", 3, {"retention.ms": "15000"}, grow=True)
    assert again.partitions == 3 and again.grown_from is None


def test_grow_never_shrinks(admin: KafkaAdminClient) -> None:
    ensure_topic(admin, "Experience", 3, {"retention.ms": "15000"})
    state = ensure_topic(admin, "Experience", 1, {"retention.ms": "15000"}, grow=True)
    assert state.partitions == 3 and state.grown_from is None


def test_refused_settings_say_which(admin: KafkaAdminClient) -> None:
    with pytest.raises(TopicSetupFailed, match="InvalidConfigurationError"):
        ensure_topic(admin, "Experience", 1, {"retention.ms": "soon"})


def test_illegal_topic_name_is_refused(admin: KafkaAdminClient) -> None:
    with pytest.raises(TopicSetupFailed, match="InvalidTopicError"):
        ensure_topic(admin, "no/slashes", 1, {"retention.ms": "1000"})
