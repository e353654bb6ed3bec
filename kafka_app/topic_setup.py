"""Make sure the app's topic exists with the retention settings we asked for.

A new topic is created with the settings as topic configs. An existing topic (a re-run, or a
real Kafka that somebody prepared) gets the same settings applied with
IncrementalAlterConfigs, so what the banner says is what Kafka does. Its partition count is
left alone: Kafka cannot shrink it, and growing it would move where keys go.

Usage:
    with KafkaAdminClient(bootstrap_servers="127.0.0.1:9092") as admin:
        topic = ensure_topic(admin, "Experience", 1, {"retention.ms": "15000"})
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import kafka.errors
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, KafkaAdminClient

from kafka_app.errors import TopicSetupFailed

__all__ = ["TopicState", "ensure_topic"]

_log = logging.getLogger("kafka_app.topic_setup")


@dataclass(frozen=True)
class TopicState:
    """What the topic looks like after `ensure_topic`."""

    name: str
    partitions: int
    created: bool
    configs: Mapping[str, str]


def ensure_topic(
    admin: KafkaAdminClient, name: str, partitions: int, configs: Mapping[str, str],
    replication_factor: int = 1,
) -> TopicState:
    """Create `name` with `configs`, or apply `configs` to it if it already exists."""
    created = _create(admin, name, partitions, configs, replication_factor)
    if not created:
        _apply_configs(admin, name, configs)
    actual = _partition_count(admin, name)
    _log.info(
        "topic %s %s with %d partition(s) and %s",
        name, "created" if created else "exists, settings applied", actual,
        ", ".join(f"{k}={v}" for k, v in configs.items()),
    )
    return TopicState(name=name, partitions=actual, created=created, configs=dict(configs))


def _create(admin: KafkaAdminClient, name: str, partitions: int, configs: Mapping[str, str],
            replication_factor: int) -> bool:
    """Create the topic; False when it already exists."""
    new_topic = {name: {"num_partitions": partitions, "replication_factor": replication_factor,
                        "configs": dict(configs)}}
    try:
        # raise_errors=False: Kafka's own error message (e.g. which config it refused) is in the
        # response, and it says more than kafka-python's exception text.
        response = admin.create_topics(new_topic, raise_errors=False)
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(f"could not create topic {name!r}: {type(error).__name__}") from error
    result = next(t for t in response["topics"] if t["name"] == name)
    error_type = kafka.errors.for_code(result["error_code"])
    if error_type is kafka.errors.TopicAlreadyExistsError:
        return False
    if error_type is not kafka.errors.NoError:
        raise TopicSetupFailed(
            f"Kafka refused to create topic {name!r} with {partitions} partition(s) and "
            f"{dict(configs)}: {error_type.__name__}: {result.get('error_message') or ''}".rstrip(": ")
        )
    try:
        admin.wait_for_topics([name])
    except kafka.errors.KafkaTimeoutError as error:
        raise TopicSetupFailed(f"topic {name!r} was created but has no leader after 10 s") from error
    return True


def _apply_configs(admin: KafkaAdminClient, name: str, configs: Mapping[str, str]) -> None:
    # Incremental, so other settings somebody gave the topic on real Kafka stay as they are.
    resource = ConfigResource(
        ConfigResourceType.TOPIC, name, configs={k: (AlterConfigOp.SET, v) for k, v in configs.items()}
    )
    try:
        result = admin.alter_configs([resource], raise_on_unknown=False, incremental=True)
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(f"could not apply {dict(configs)} to topic {name!r}: {type(error).__name__}") from error
    outcome = result.get("topic", {}).get(name)
    if outcome != "OK":
        raise TopicSetupFailed(f"Kafka refused {dict(configs)} for topic {name!r}: {outcome}")


def _partition_count(admin: KafkaAdminClient, name: str) -> int:
    try:
        described = admin.describe_topics([name])
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(f"could not describe topic {name!r}: {type(error).__name__}") from error
    for topic in described:
        if topic["name"] == name and topic["error_code"] == 0:
            return len(topic["partitions"])
    raise TopicSetupFailed(f"topic {name!r} is missing from Kafka's metadata: {described}")

