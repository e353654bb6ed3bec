"""Make sure the app's topic exists with the retention settings we asked for.

A new topic is created with the settings as topic configs. An existing topic (a re-run, or a
real Kafka that somebody prepared) gets the same settings applied with
IncrementalAlterConfigs, so what the banner says is what Kafka does. Its partition count is
left alone unless asked (`grow=True`, CreatePartitions, as `kafka-topics --alter --partitions`):
growing moves where keys go, and Kafka cannot shrink a topic at all.

Usage:
    with KafkaAdminClient(bootstrap_servers="127.0.0.1:9092") as admin:
        topic = ensure_topic(admin, "Experience", 1, {"retention.ms": "15000"})
        topic = ensure_topic(admin, "Experience", 3, {}, grow=True)   # 1 -> 3 partitions
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass

import kafka.errors
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType, KafkaAdminClient

from kafka_app.errors import TopicSetupFailed

__all__ = ["TopicState", "ensure_topic"]

_log = logging.getLogger("kafka_app.topic_setup")
# How long new partitions may take to show in Kafka's metadata, and how often to look there.
_GROW_TIMEOUT_SEC = 10.0
_POLL_SEC = 0.1
# How long a broker of a cluster may take to learn of a topic the controller just created.
_METADATA_TIMEOUT_SEC = 10.0


@dataclass(frozen=True)
class TopicState:
    """What the topic looks like after `ensure_topic`."""

    name: str
    partitions: int
    created: bool
    configs: Mapping[str, str]
    # How many partitions the topic had before `grow` added some (None: nothing added).
    grown_from: int | None = None


def ensure_topic(
    admin: KafkaAdminClient,
    name: str,
    partitions: int,
    configs: Mapping[str, str],
    replication_factor: int = 1,
    grow: bool = False,
) -> TopicState:
    """Create `name` with `configs`, or apply `configs` to it if it already exists; with
    `grow`, an existing topic with fewer than `partitions` partitions gets the missing ones."""
    created = _create(admin, name, partitions, configs, replication_factor)
    if not created:
        _apply_configs(admin, name, configs)
    actual = _partition_count(admin, name)
    grown_from = None
    if grow and not created and actual < partitions:
        _add_partitions(admin, name, actual, partitions)
        grown_from, actual = actual, _partition_count(admin, name)
    _log.info(
        "topic %s %s with %d partition(s) and %s",
        name,
        "created" if created else "exists, settings applied",
        actual,
        ", ".join(f"{k}={v}" for k, v in configs.items()),
    )
    if grown_from is not None:
        _log.info("topic %s grew from %d to %d partition(s)", name, grown_from, actual)
    return TopicState(
        name=name, partitions=actual, created=created, configs=dict(configs), grown_from=grown_from
    )


def _add_partitions(admin: KafkaAdminClient, name: str, before: int, total: int) -> None:
    """CreatePartitions up to `total`, then wait until Kafka's metadata shows all of them,
    each with a leader (a producer sending to a partition before that would be refused)."""
    try:
        # raise_errors=False: Kafka's own error message is in the response, as for creation.
        response = admin.create_partitions({name: total}, raise_errors=False)
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(
            f"could not grow topic {name!r} from {before} to {total} "
            f"partitions: {type(error).__name__}"
        ) from error
    for result in response.results:
        error_type = kafka.errors.for_code(result.error_code)
        if error_type is not kafka.errors.NoError:
            raise TopicSetupFailed(
                f"Kafka refused to grow topic {name!r} from {before} to {total} partitions: "
                f"{error_type.__name__}: {result.error_message or ''}".rstrip(": ")
            )
    deadline = time.monotonic() + _GROW_TIMEOUT_SEC
    while True:
        try:
            admin.wait_for_topics([name], timeout_ms=round(_GROW_TIMEOUT_SEC * 1000))
        except kafka.errors.KafkaTimeoutError as error:
            raise TopicSetupFailed(
                f"topic {name!r} grew to {total} partitions but has no "
                f"leader after {_GROW_TIMEOUT_SEC:g} s"
            ) from error
        if _partition_count(admin, name) >= total:
            return
        if time.monotonic() > deadline:
            raise TopicSetupFailed(
                f"Kafka accepted {total} partitions for topic {name!r} but "
                f"its metadata still shows fewer after {_GROW_TIMEOUT_SEC:g} s"
            )
        time.sleep(_POLL_SEC)


def _create(
    admin: KafkaAdminClient,
    name: str,
    partitions: int,
    configs: Mapping[str, str],
    replication_factor: int,
) -> bool:
    """Create the topic; False when it already exists."""
    new_topic = {
        name: {
            "num_partitions": partitions,
            "replication_factor": replication_factor,
            "configs": dict(configs),
        }
    }
    try:
        # raise_errors=False: Kafka's own error message (e.g. which config it refused) is in the
        # response, and it says more than kafka-python's exception text.
        response = admin.create_topics(new_topic, raise_errors=False)
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(
            f"could not create topic {name!r}: {type(error).__name__}"
        ) from error
    result = next(t for t in response["topics"] if t["name"] == name)
    error_type = kafka.errors.for_code(result["error_code"])
    if error_type is kafka.errors.TopicAlreadyExistsError:
        return False
    if error_type is not kafka.errors.NoError:
        raise TopicSetupFailed(
            f"Kafka refused to create topic {name!r} with {partitions} partition(s) and "
            f"{dict(configs)}: {error_type.__name__}: {result.get('error_message') or ''}".rstrip(
                ": "
            )
        )
    try:
        admin.wait_for_topics([name])
    except kafka.errors.KafkaTimeoutError as error:
        raise TopicSetupFailed(
            f"topic {name!r} was created but has no leader after 10 s"
        ) from error
    return True


def _apply_configs(admin: KafkaAdminClient, name: str, configs: Mapping[str, str]) -> None:
    # Incremental, so other settings somebody gave the topic on real Kafka stay as they are.
    resource = ConfigResource(
        ConfigResourceType.TOPIC,
        name,
        configs={k: (AlterConfigOp.SET, v) for k, v in configs.items()},
    )
    try:
        result = admin.alter_configs([resource], raise_on_unknown=False, incremental=True)
    except kafka.errors.KafkaError as error:
        raise TopicSetupFailed(
            f"could not apply {dict(configs)} to topic {name!r}: {type(error).__name__}"
        ) from error
    outcome = result.get("topic", {}).get(name)
    if outcome != "OK":
        raise TopicSetupFailed(f"Kafka refused {dict(configs)} for topic {name!r}: {outcome}")


def _partition_count(admin: KafkaAdminClient, name: str) -> int:
    """The topic's partition count, from whichever broker the admin client asks. On a cluster
    a broker learns of a new topic a moment after the controller created it, so a broker that
    has not yet answers UNKNOWN_TOPIC_OR_PARTITION: asked again until _METADATA_TIMEOUT_SEC."""
    deadline = time.monotonic() + _METADATA_TIMEOUT_SEC
    while True:
        try:
            described = admin.describe_topics([name])
        except kafka.errors.KafkaError as error:
            raise TopicSetupFailed(
                f"could not describe topic {name!r}: {type(error).__name__}"
            ) from error
        for topic in described:
            if topic["name"] == name and topic["error_code"] == 0:
                return len(topic["partitions"])
        if time.monotonic() > deadline:
            raise TopicSetupFailed(
                f"topic {name!r} is missing from Kafka's metadata after "
                f"{_METADATA_TIMEOUT_SEC:g} s: {described}"
            )
        time.sleep(_POLL_SEC)
