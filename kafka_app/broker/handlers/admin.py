"""CreateTopics, DescribeConfigs and IncrementalAlterConfigs: creating topics and their settings.

One node holds one copy of everything, so the only replication factors are 1 and -1 (the
default). Config sources follow Kafka: 1 = set on the topic, 5 = the default, because
kafka-python's `describe_configs` hides defaults by their source.
Usage: `await handle_create_topics(ctx, request, version)`.
"""

from __future__ import annotations

from kafka.protocol.admin.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)
from kafka.protocol.admin.topics import CreateTopicsRequest, CreateTopicsResponse

from kafka_app.broker.errors import (
    BrokerError,
    InvalidConfig,
    InvalidPartitions,
    InvalidReplicationFactor,
    TopicAlreadyExists,
)
from kafka_app.broker.handlers.context import BrokerContext
from kafka_app.broker.storage import MAX_PARTITIONS, validate_topic_name
from kafka_app.broker.topic_config import TopicConfig

__all__ = ["handle_create_topics", "handle_describe_configs", "handle_incremental_alter_configs"]

TOPIC_RESOURCE = 2
BROKER_RESOURCE = 4
SOURCE_TOPIC = 1
SOURCE_DEFAULT = 5
OP_SET, OP_DELETE = 0, 1
INVALID_REQUEST = 42
_Creatable = CreateTopicsRequest.CreatableTopic
_Created = CreateTopicsResponse.CreatableTopicResult
_CreatedConfig = _Created.CreatableTopicConfigs
_Described = DescribeConfigsResponse.DescribeConfigsResult
_DescribedConfig = _Described.DescribeConfigsResourceResult
_Alterable = IncrementalAlterConfigsRequest.AlterConfigsResource
_Altered = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse


async def handle_create_topics(ctx: BrokerContext, request: CreateTopicsRequest,
                               version: int) -> CreateTopicsResponse:
    validate_only = bool(request.validate_only)
    results = [_create_one(ctx, topic, validate_only) for topic in request.topics]
    return CreateTopicsResponse(throttle_time_ms=0, topics=results)


def _create_one(ctx: BrokerContext, topic: _Creatable, validate_only: bool) -> _Created:
    name: str = topic.name
    configs = {c.name: c.value for c in topic.configs}
    try:
        partitions = _partition_count(ctx, topic)
        if validate_only:
            config = _validate_new_topic(ctx, name, partitions, configs)
        else:
            config = ctx.storage.create_topic(name, partitions, configs)  # storage logs it
    except BrokerError as error:
        return _Created(name=name, error_code=error.error_code, error_message=str(error),
                        num_partitions=-1, replication_factor=-1, configs=None)
    return _Created(name=name, error_code=0, error_message=None, num_partitions=partitions,
                    replication_factor=1, configs=[
                        _CreatedConfig(name=key, value=value, read_only=False,
                                       config_source=SOURCE_DEFAULT if is_default else SOURCE_TOPIC,
                                       is_sensitive=False)
                        for key, value, is_default in config.describe()
                    ])


def _partition_count(ctx: BrokerContext, topic: _Creatable) -> int:
    factor = topic.replication_factor
    if factor not in (-1, 1):
        raise InvalidReplicationFactor(
            f"replication factor {factor} is impossible on this single-node broker; use 1 or -1")
    assignments = topic.assignments
    count = len(assignments) if assignments else topic.num_partitions
    if count == -1:
        count = ctx.settings.default_partitions
    # Before any folder or file: a typo such as 100000000 must not start making partitions.
    if not 1 <= count <= MAX_PARTITIONS:
        raise InvalidPartitions(f"topic {topic.name} needs 1..{MAX_PARTITIONS} partitions, got {count}")
    return count


def _validate_new_topic(ctx: BrokerContext, name: str, partitions: int,
                        configs: dict[str, str]) -> TopicConfig:
    validate_topic_name(name)
    if partitions < 1:
        raise InvalidPartitions(f"topic {name} needs at least one partition, got {partitions}")
    config = TopicConfig.from_strings(configs)
    if name in ctx.storage.topics():
        raise TopicAlreadyExists(f"topic {name} already exists")
    return config


async def handle_describe_configs(ctx: BrokerContext, request: DescribeConfigsRequest,
                                  version: int) -> DescribeConfigsResponse:
    results = [_describe_one(ctx, r) for r in request.resources]
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)


def _describe_one(ctx: BrokerContext, resource: DescribeConfigsRequest.DescribeConfigsResource) -> _Described:
    kind, name = resource.resource_type, resource.resource_name
    keys = resource.configuration_keys
    rows: list[tuple[str, str, bool]] = []
    try:
        if kind == TOPIC_RESOURCE:
            rows = ctx.storage.topic_config(name).describe()
        elif kind != BROKER_RESOURCE:
            raise InvalidConfig(f"resource type {kind} has no configs on this broker")
    except BrokerError as error:
        return _Described(error_code=error.error_code, error_message=str(error),
                          resource_type=kind, resource_name=name, configs=[])
    wanted = set(keys) if keys is not None else None
    configs = [
        _DescribedConfig(name=key, value=value, read_only=False, is_default=is_default,
                         config_source=SOURCE_DEFAULT if is_default else SOURCE_TOPIC,
                         is_sensitive=False, synonyms=[], config_type=0, documentation=None)
        for key, value, is_default in rows
        if wanted is None or key in wanted
    ]
    return _Described(error_code=0, error_message=None, resource_type=kind,
                      resource_name=name, configs=configs)


async def handle_incremental_alter_configs(
    ctx: BrokerContext, request: IncrementalAlterConfigsRequest, version: int
) -> IncrementalAlterConfigsResponse:
    validate_only = bool(request.validate_only)
    responses = [_alter_one(ctx, r, validate_only) for r in request.resources]
    return IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=responses)


def _alter_one(ctx: BrokerContext, resource: _Alterable, validate_only: bool) -> _Altered:
    kind, name = resource.resource_type, resource.resource_name
    try:
        if kind != TOPIC_RESOURCE:
            raise InvalidConfig(f"only topic configs can be altered here, not resource type {kind}")
        sets, deletes = _operations(resource.configs)
        if validate_only:
            ctx.storage.topic_config(name).altered(sets, deletes)
        else:
            ctx.storage.alter_topic_config(name, sets, deletes)  # storage logs the new configs
    except BrokerError as error:
        return _Altered(error_code=error.error_code, error_message=str(error),
                        resource_type=kind, resource_name=name)
    return _Altered(error_code=0, error_message=None, resource_type=kind, resource_name=name)


def _operations(configs: list[_Alterable.AlterableConfig]) -> tuple[dict[str, str], list[str]]:
    sets: dict[str, str] = {}
    deletes: list[str] = []
    for entry in configs:
        operation = entry.config_operation
        if operation == OP_SET:
            sets[entry.name] = entry.value
        elif operation == OP_DELETE:
            deletes.append(entry.name)
        else:
            raise InvalidConfig(
                f"config operation {operation} on {entry.name} is not supported; use SET or DELETE")
    return sets, deletes
