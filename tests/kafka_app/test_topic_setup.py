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


def test_existing_topic_gets_the_new_settings_and_keeps_its_partitions(
    admin: KafkaAdminClient,
) -> None:
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


def test_no_settings_leaves_an_existing_topics_settings_alone(admin: KafkaAdminClient) -> None:
    # What the stage asks when it grows an exhibit's topic: partitions, nothing else changed.
    ensure_topic(admin, "Experience", 1, {"retention.ms": "15000"})
    state = ensure_topic(admin, "Experience", 2, {}, grow=True)
    assert state.partitions == 2 and state.grown_from == 1 and state.configs == {}
    assert _topic_configs(admin, "Experience")["retention.ms"] == "15000"


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


class _LaggingBroker:
    """The admin client as it is when it asks a broker of a cluster that has not yet learnt
    of a topic the controller just created (seen in CI with three Apache Kafka nodes): the
    first `lag` descriptions say UNKNOWN_TOPIC_OR_PARTITION, later ones the real answer."""

    def __init__(self, admin: KafkaAdminClient, lag: int) -> None:
        self._admin, self._lag = admin, lag

    def describe_topics(self, names: list[str]) -> list[dict]:
        if self._lag > 0:
            self._lag -= 1
            return [{"error_code": 3, "name": n, "partitions": []} for n in names]
        return self._admin.describe_topics(names)

    def __getattr__(self, attribute: str):
        return getattr(self._admin, attribute)


def test_a_broker_that_has_not_yet_learnt_of_the_topic_is_asked_again(
    admin: KafkaAdminClient,
) -> None:
    state = ensure_topic(_LaggingBroker(admin, lag=3), "Experience", 2, {"retention.ms": "15000"})
    assert state.created and state.partitions == 2


def test_a_topic_no_broker_knows_is_refused_after_the_wait(
    admin: KafkaAdminClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kafka_app.topic_setup._METADATA_TIMEOUT_SEC", 0.3)
    with pytest.raises(TopicSetupFailed, match="missing from Kafka's metadata after 0.3 s"):
        ensure_topic(_LaggingBroker(admin, lag=1000), "Experience", 1, {"retention.ms": "15000"})
