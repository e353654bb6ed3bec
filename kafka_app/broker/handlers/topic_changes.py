"""DeleteTopics and CreatePartitions: removing a topic with its data, and adding partitions.

Both follow Kafka's controller: a topic named twice in one request is INVALID_REQUEST (answered
once, first), an unknown
one UNKNOWN_TOPIC_OR_PARTITION; partitions only ever grow (INVALID_PARTITIONS otherwise) and a
manual assignment must name one replica on broker 0 per new partition (INVALID_REPLICA_ASSIGNMENT).
Deleting a topic also deletes every group's committed offsets for it, as Kafka does, so a topic
created again under the same name starts from scratch: offset 0, nothing committed.
Usage: `await handle_delete_topics(ctx, request, version)`.
"""

from __future__ import annotations

from kafka.protocol.admin.topics import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
)

from kafka_app.broker.errors import (
    BrokerError,
    InvalidReplicaAssignment,
    InvalidRequest,
    UnknownTopicOrPartition,
)
from kafka_app.broker.handlers.context import NODE_ID, BrokerContext, each_name_once
from kafka_app.broker.storage.data_dir import check_partition_increase

__all__ = ["handle_delete_topics", "handle_create_partitions"]

_Deleted = DeleteTopicsResponse.DeletableTopicResult
_Grown = CreatePartitionsResponse.CreatePartitionsTopicResult
_Growable = CreatePartitionsRequest.CreatePartitionsTopic
_DUPLICATE = "Duplicate topic name."


async def handle_delete_topics(
    ctx: BrokerContext, request: DeleteTopicsRequest, version: int
) -> DeleteTopicsResponse:
    twice, once = each_name_once(request.topic_names or [])
    results = [
        _Deleted(name=name, error_code=InvalidRequest.error_code, error_message=_DUPLICATE)
        for name in twice
    ]
    results += [_delete_one(ctx, name) for name in once]
    return DeleteTopicsResponse(throttle_time_ms=0, responses=results)


def _delete_one(ctx: BrokerContext, name: str) -> _Deleted:
    try:
        ctx.storage.delete_topic(name)  # storage logs it
        ctx.offsets.delete_topic(name)
    except BrokerError as error:
        return _Deleted(name=name, error_code=error.error_code, error_message=str(error))
    return _Deleted(name=name, error_code=0, error_message=None)


async def handle_create_partitions(
    ctx: BrokerContext, request: CreatePartitionsRequest, version: int
) -> CreatePartitionsResponse:
    twice, once = each_name_once(t.name for t in request.topics)
    by_name = {t.name: t for t in request.topics}
    results = [
        _Grown(name=name, error_code=InvalidRequest.error_code, error_message=_DUPLICATE)
        for name in twice
    ]
    results += [_grow_one(ctx, by_name[name], bool(request.validate_only)) for name in once]
    return CreatePartitionsResponse(throttle_time_ms=0, results=results)


def _grow_one(ctx: BrokerContext, topic: _Growable, validate_only: bool) -> _Grown:
    try:
        current = ctx.storage.topics().get(topic.name)
        if current is None:
            raise UnknownTopicOrPartition(f"unknown topic {topic.name!r}")
        check_partition_increase(topic.name, current, topic.count)
        _check_assignments(topic, topic.count - current)
        ctx.storage.check_partition_cap(topic.name, topic.count - current)  # --max-partitions
        if not validate_only:
            ctx.storage.add_partitions(topic.name, topic.count)  # storage logs it
    except BrokerError as error:
        return _Grown(name=topic.name, error_code=error.error_code, error_message=str(error))
    return _Grown(name=topic.name, error_code=0, error_message=None)


def _check_assignments(topic: _Growable, additional: int) -> None:
    if topic.assignments is None:
        return
    if len(topic.assignments) != additional:
        raise InvalidReplicaAssignment(
            f"Attempted to add {additional} additional partition(s), but only "
            f"{len(topic.assignments)} assignment(s) were specified."
        )
    for assignment in topic.assignments:
        if list(assignment.broker_ids) != [NODE_ID]:
            raise InvalidReplicaAssignment(
                f"assignment {list(assignment.broker_ids)} for topic {topic.name} is impossible: "
                f"this single-node broker can only place one replica, on broker {NODE_ID}"
            )
