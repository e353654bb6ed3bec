"""CreateTopics, with Kafka's checks in Kafka's order and with Kafka's error codes.

As in Kafka's controller (ReplicationControlManager.createTopics): a request asking for more
than 10,000 partitions in all is refused as a whole with POLICY_VIOLATION before anything else;
a name given twice gets INVALID_REQUEST ("Duplicate topic name."); then each topic is checked
for its name, existence, configs and partition layout. A manual replica assignment must use
replication factor and partition count -1, name partitions 0..n-1 once each, and put each on
broker 0 (the only one) exactly once: anything else is INVALID_REPLICA_ASSIGNMENT. On top of
Kafka, the broker-wide `--max-partitions` cap answers POLICY_VIOLATION, as a Kafka
CreateTopicPolicy would.

Usage: `await handle_create_topics(ctx, request, version)`.
"""

from __future__ import annotations

from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse

from kafka_app.broker.errors import (
    BrokerError,
    InvalidPartitions,
    InvalidReplicaAssignment,
    InvalidReplicationFactor,
    InvalidRequest,
    PolicyViolation,
    TopicAlreadyExists,
)
from kafka_app.broker.handlers.context import NODE_ID, BrokerContext, each_name_once
from kafka_app.broker.storage.data_dir import validate_topic_name
from kafka_app.broker.storage.topic_config import TopicConfig

__all__ = ["handle_create_topics", "MAX_PARTITIONS_PER_REQUEST"]

# Kafka's ReplicationControlManager.MAX_PARTITIONS_PER_BATCH.
MAX_PARTITIONS_PER_REQUEST = 10_000
SOURCE_TOPIC = 1
SOURCE_DEFAULT = 5
_Creatable = CreateTopicsRequest.CreatableTopic
_Created = CreateTopicsResponse.CreatableTopicResult
_CreatedConfig = _Created.CreatableTopicConfigs


async def handle_create_topics(
    ctx: BrokerContext, request: CreateTopicsRequest, version: int
) -> CreateTopicsResponse:
    topics: list[_Creatable] = request.topics
    try:
        _check_request_total(ctx, topics)
    except PolicyViolation as error:
        return _response([_failed(topic.name, error) for topic in topics])
    twice, once = each_name_once(topic.name for topic in topics)
    by_name = {topic.name: topic for topic in topics}
    results = [_failed(name, InvalidRequest("Duplicate topic name.")) for name in twice]
    results += [_create_one(ctx, by_name[name], bool(request.validate_only)) for name in once]
    return _response(results)


def _response(results: list[_Created]) -> CreateTopicsResponse:
    return CreateTopicsResponse(throttle_time_ms=0, topics=results)


def _check_request_total(ctx: BrokerContext, topics: list[_Creatable]) -> None:
    """Kafka's validateTotalNumberOfPartitions: before any topic, the request as a whole."""
    total = 0
    for topic in topics:
        if topic.assignments:
            total += len(topic.assignments)
        elif topic.num_partitions == -1:
            total += ctx.settings.default_partitions
        elif topic.num_partitions > 0:
            total += topic.num_partitions
    if total > MAX_PARTITIONS_PER_REQUEST:
        raise PolicyViolation("Excessively large number of partitions per request.")


def _create_one(ctx: BrokerContext, topic: _Creatable, validate_only: bool) -> _Created:
    name: str = topic.name
    try:
        validate_topic_name(name)
        if name in ctx.storage.topics():
            raise TopicAlreadyExists(f"Topic '{name}' already exists.")
        configs = {c.name: c.value for c in topic.configs}
        config = TopicConfig.from_strings(configs)
        partitions = _partition_count(ctx, topic)
        if validate_only:
            ctx.storage.check_partition_cap(name, partitions)
        else:
            config = ctx.storage.create_topic(name, partitions, configs)  # storage logs it
    except BrokerError as error:
        return _failed(name, error)
    return _Created(
        name=name,
        error_code=0,
        error_message=None,
        num_partitions=partitions,
        replication_factor=1,
        configs=[
            _CreatedConfig(
                name=key,
                value=value,
                read_only=False,
                config_source=SOURCE_DEFAULT if is_default else SOURCE_TOPIC,
                is_sensitive=False,
            )
            for key, value, is_default in config.describe()
        ],
    )


def _failed(name: str, error: BrokerError) -> _Created:
    return _Created(
        name=name,
        error_code=error.error_code,
        error_message=str(error),
        num_partitions=-1,
        replication_factor=-1,
        configs=None,
    )


def _partition_count(ctx: BrokerContext, topic: _Creatable) -> int:
    if topic.assignments:
        return _assigned_partitions(topic)
    factor = topic.replication_factor
    if factor < -1 or factor == 0:
        raise InvalidReplicationFactor(
            "Replication factor must be larger than 0, or -1 to use the default value."
        )
    if factor > 1:
        raise InvalidReplicationFactor(
            f"replication factor {factor} is impossible on this single-node broker; use 1 or -1"
        )
    count = topic.num_partitions
    if count < -1 or count == 0:
        raise InvalidPartitions("Number of partitions was set to an invalid non-positive value.")
    return ctx.settings.default_partitions if count == -1 else count


def _assigned_partitions(topic: _Creatable) -> int:
    """Kafka's checks of a manual assignment, on a cluster whose only broker is NODE_ID."""
    if topic.replication_factor != -1:
        raise InvalidRequest(
            "A manual partition assignment was specified, but replication factor was not set to -1."
        )
    if topic.num_partitions != -1:
        raise InvalidRequest(
            "A manual partition assignment was specified, but numPartitions was not set to -1."
        )
    seen: set[int] = set()
    for assignment in topic.assignments:
        index, brokers = assignment.partition_index, list(assignment.broker_ids)
        if index in seen:
            raise InvalidReplicaAssignment(
                f"Found multiple manual partition assignments for partition {index}"
            )
        seen.add(index)
        _check_replicas(brokers)
    if seen != set(range(len(seen))):
        raise InvalidReplicaAssignment(
            "partitions should be a consecutive 0-based integer sequence"
        )
    return len(seen)


def _check_replicas(brokers: list[int]) -> None:
    if not brokers:
        raise InvalidReplicaAssignment(
            "The manual partition assignment includes an empty replica list."
        )
    for broker in brokers:
        if broker != NODE_ID:
            raise InvalidReplicaAssignment(
                f"The manual partition assignment includes broker {broker}, but no such "
                f"broker is registered."
            )
    if len(brokers) > 1:
        raise InvalidReplicaAssignment(
            f"The manual partition assignment includes the broker {NODE_ID} more than once."
        )
