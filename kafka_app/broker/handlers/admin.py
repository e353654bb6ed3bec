"""DescribeConfigs and IncrementalAlterConfigs: reading and changing topic settings.

Config sources follow Kafka: 1 = set on the topic, 5 = the default, because kafka-python's
`describe_configs` hides defaults by their source. CreateTopics lives in create_topics.py.
Usage: `await handle_describe_configs(ctx, request, version)`.
"""

from __future__ import annotations

from collections import Counter

from kafka.protocol.admin.configs import (
    DescribeConfigsRequest,
    DescribeConfigsResponse,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
)

from kafka_app.broker.errors import BrokerError, InvalidConfig, InvalidRequest
from kafka_app.broker.handlers.context import BrokerContext

__all__ = ["handle_describe_configs", "handle_incremental_alter_configs"]

TOPIC_RESOURCE = 2
BROKER_RESOURCE = 4
SOURCE_TOPIC = 1
SOURCE_DEFAULT = 5
OP_SET, OP_DELETE = 0, 1
_Described = DescribeConfigsResponse.DescribeConfigsResult
_DescribedConfig = _Described.DescribeConfigsResourceResult
_Alterable = IncrementalAlterConfigsRequest.AlterConfigsResource
_Altered = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse


async def handle_describe_configs(
    ctx: BrokerContext, request: DescribeConfigsRequest, version: int
) -> DescribeConfigsResponse:
    results = [_describe_one(ctx, r) for r in request.resources]
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)


def _describe_one(
    ctx: BrokerContext, resource: DescribeConfigsRequest.DescribeConfigsResource
) -> _Described:
    kind, name = resource.resource_type, resource.resource_name
    keys = resource.configuration_keys
    rows: list[tuple[str, str, bool]] = []
    try:
        if kind == TOPIC_RESOURCE:
            rows = ctx.storage.topic_config(name).describe()
        elif kind != BROKER_RESOURCE:
            raise InvalidConfig(f"resource type {kind} has no configs on this broker")
    except BrokerError as error:
        return _Described(
            error_code=error.error_code,
            error_message=str(error),
            resource_type=kind,
            resource_name=name,
            configs=[],
        )
    wanted = set(keys) if keys is not None else None
    configs = [
        _DescribedConfig(
            name=key,
            value=value,
            read_only=False,
            is_default=is_default,
            config_source=SOURCE_DEFAULT if is_default else SOURCE_TOPIC,
            is_sensitive=False,
            synonyms=[],
            config_type=0,
            documentation=None,
        )
        for key, value, is_default in rows
        if wanted is None or key in wanted
    ]
    return _Described(
        error_code=0, error_message=None, resource_type=kind, resource_name=name, configs=configs
    )


async def handle_incremental_alter_configs(
    ctx: BrokerContext, request: IncrementalAlterConfigsRequest, version: int
) -> IncrementalAlterConfigsResponse:
    validate_only = bool(request.validate_only)
    # Kafka's ConfigAdminManager.preprocess: a resource named twice is refused every time it
    # appears, so one request cannot rewrite the same topic's configs a thousand times.
    named = Counter((r.resource_type, r.resource_name) for r in request.resources)
    responses = [
        _altered(r, InvalidRequest("Each resource must appear at most once."))
        if named[r.resource_type, r.resource_name] > 1
        else _alter_one(ctx, r, validate_only)
        for r in request.resources
    ]
    return IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=responses)


def _alter_one(ctx: BrokerContext, resource: _Alterable, validate_only: bool) -> _Altered:
    try:
        if resource.resource_type != TOPIC_RESOURCE:
            raise InvalidConfig(
                f"only topic configs can be altered here, "
                f"not resource type {resource.resource_type}"
            )
        _check_shape(resource.configs)
        sets, deletes = _operations(resource.configs)
        if validate_only:
            ctx.storage.topic_config(resource.resource_name).altered(sets, deletes)
        else:  # storage logs the new configs
            ctx.storage.alter_topic_config(resource.resource_name, sets, deletes)
    except BrokerError as error:
        return _altered(resource, error)
    return _altered(resource, None)


def _altered(resource: _Alterable, error: BrokerError | None) -> _Altered:
    return _Altered(
        error_code=error.error_code if error else 0,
        error_message=str(error) if error else None,
        resource_type=resource.resource_type,
        resource_name=resource.resource_name,
    )


def _check_shape(configs: list[_Alterable.AlterableConfig]) -> None:
    """Kafka's preprocess checks of one resource: each key once, a value unless deleting."""
    names = [entry.name for entry in configs]
    if len(set(names)) != len(names):
        raise InvalidRequest("Error due to duplicate config keys")
    missing = [
        entry.name
        for entry in configs
        if entry.config_operation != OP_DELETE and entry.value is None
    ]
    if missing:
        raise InvalidRequest(f"Null value not supported for : {', '.join(missing)}")


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
                f"config operation {operation} on {entry.name} is not supported; use SET or DELETE"
            )
    return sets, deletes
