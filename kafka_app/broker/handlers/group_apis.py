"""Consumer-group APIs on the wire: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit and OffsetFetch. The protocol logic is in `kafka_app.broker.groups.coordinator`;
these functions translate between it and Kafka's messages.
Usage: `GROUP_HANDLERS[ApiKey.JoinGroup](ctx, request, version)`.
"""

from __future__ import annotations

from typing import Any

from kafka.protocol.api_key import ApiKey
from kafka.protocol.consumer.group import (
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    OffsetCommitRequest,
    OffsetCommitResponse,
    OffsetFetchRequest,
    OffsetFetchResponse,
    SyncGroupRequest,
    SyncGroupResponse,
)
from kafka.protocol.metadata.find_coordinator import FindCoordinatorRequest, FindCoordinatorResponse

from kafka_app.broker.errors import BrokerError, ErrorCode
from kafka_app.broker.groups.coordinator import JoinRequest, JoinResult
from kafka_app.broker.handlers.context import NODE_ID, BrokerContext
from kafka_app.broker.handlers.produce import NO_TRANSACTIONS

__all__ = ["GROUP_HANDLERS"]

TRANSACTION_KEY = 1  # FindCoordinator key type: 0 = group, 1 = transaction
# Kafka's group.min.session.timeout.ms and group.max.session.timeout.ms defaults.
MIN_SESSION_TIMEOUT_MS = 6_000
MAX_SESSION_TIMEOUT_MS = 1_800_000
# JoinGroup v4+ makes new members ask twice; older clients get their id in one round trip.
_MEMBER_ID_REQUIRED_SINCE = 4


async def handle_find_coordinator(
    ctx: BrokerContext, request: FindCoordinatorRequest, version: int
) -> FindCoordinatorResponse:
    host, port = ctx.advertised_host, ctx.advertised_port
    # Groups are coordinated here; transactions are not (no transaction coordinator), and a
    # transactional producer hears so at once, with an error both clients treat as fatal.
    refused = NO_TRANSACTIONS if version >= 1 and request.key_type == TRANSACTION_KEY else None
    code = refused.error_code if refused else 0
    message = str(refused) if refused else None
    node, host, port = (-1, "", -1) if refused else (NODE_ID, host, port)
    if version < 4:
        return FindCoordinatorResponse(
            throttle_time_ms=0,
            error_code=code,
            error_message=message,
            node_id=node,
            host=host,
            port=port,
        )
    coordinators = [
        FindCoordinatorResponse.Coordinator(
            key=key, node_id=node, host=host, port=port, error_code=code, error_message=message
        )
        for key in request.coordinator_keys
    ]
    return FindCoordinatorResponse(throttle_time_ms=0, coordinators=coordinators)


async def handle_join_group(
    ctx: BrokerContext, request: JoinGroupRequest, version: int
) -> JoinGroupResponse:
    # v0 has no rebalance timeout; Kafka then uses the session timeout for both.
    rebalance_timeout = request.rebalance_timeout_ms if version >= 1 else request.session_timeout_ms
    if not MIN_SESSION_TIMEOUT_MS <= request.session_timeout_ms <= MAX_SESSION_TIMEOUT_MS:
        # Kafka's classic coordinator checks this first: a member that could go silent for
        # days (or one that expires at once) never joins.
        result = JoinResult(ErrorCode.INVALID_SESSION_TIMEOUT, request.member_id)
    else:
        result = await ctx.groups.join(_join_request(request, version, rebalance_timeout))
    members = [
        JoinGroupResponse.JoinGroupResponseMember(
            member_id=m, group_instance_id=None, metadata=meta
        )
        for m, meta in result.members
    ]
    return JoinGroupResponse(
        throttle_time_ms=0,
        error_code=result.error_code,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name or "",
        leader=result.leader,
        skip_assignment=False,
        member_id=result.member_id,
        members=members,
    )


def _join_request(request: JoinGroupRequest, version: int, rebalance_timeout: int) -> JoinRequest:
    return JoinRequest(
        group_id=request.group_id,
        member_id=request.member_id,
        client_id=_client_id(request),
        session_timeout_ms=request.session_timeout_ms,
        rebalance_timeout_ms=rebalance_timeout,
        protocol_type=request.protocol_type,
        protocols=[(p.name, bytes(p.metadata)) for p in request.protocols],
        require_known_member_id=version >= _MEMBER_ID_REQUIRED_SINCE,
    )


def _client_id(request: JoinGroupRequest) -> str:
    header = getattr(request, "header", None)
    return (getattr(header, "client_id", None) or "consumer") if header is not None else "consumer"


async def handle_sync_group(
    ctx: BrokerContext, request: SyncGroupRequest, version: int
) -> SyncGroupResponse:
    assignments = {a.member_id: bytes(a.assignment) for a in request.assignments}
    result = await ctx.groups.sync(
        request.group_id, request.generation_id, request.member_id, assignments
    )
    return SyncGroupResponse(
        throttle_time_ms=0,
        error_code=result.error_code,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name,
        assignment=result.assignment,
    )


async def handle_heartbeat(
    ctx: BrokerContext, request: HeartbeatRequest, version: int
) -> HeartbeatResponse:
    error = ctx.groups.heartbeat(request.group_id, request.generation_id, request.member_id)
    return HeartbeatResponse(throttle_time_ms=0, error_code=error)


async def handle_leave_group(
    ctx: BrokerContext, request: LeaveGroupRequest, version: int
) -> LeaveGroupResponse:
    group_id = request.group_id
    if version < 3:
        error = ctx.groups.leave(group_id, request.member_id)
        return LeaveGroupResponse(throttle_time_ms=0, error_code=error)
    members = [
        LeaveGroupResponse.MemberResponse(
            member_id=m.member_id,
            group_instance_id=m.group_instance_id,
            error_code=ctx.groups.leave(group_id, m.member_id),
        )
        for m in request.members
    ]
    return LeaveGroupResponse(throttle_time_ms=0, error_code=0, members=members)


async def handle_offset_commit(
    ctx: BrokerContext, request: OffsetCommitRequest, version: int
) -> OffsetCommitResponse:
    group_id = request.group_id
    # A stale member (an older generation) may not commit: Kafka's rule, so that a member that
    # lost a partition cannot overwrite its new owner's progress.
    error = ctx.groups.commit_error(
        group_id, request.generation_id_or_member_epoch, request.member_id, version
    )
    Topic = OffsetCommitResponse.OffsetCommitResponseTopic
    topics = []
    for topic in request.topics:
        partitions = [
            Topic.OffsetCommitResponsePartition(
                partition_index=p.partition_index,
                error_code=error or _commit_one(ctx, group_id, topic.name, p),
            )
            for p in topic.partitions
        ]
        topics.append(Topic(name=topic.name, partitions=partitions))
    return OffsetCommitResponse(throttle_time_ms=0, topics=topics)


def _commit_one(
    ctx: BrokerContext,
    group_id: str,
    topic: str,
    partition: OffsetCommitRequest.OffsetCommitRequestTopic.OffsetCommitRequestPartition,
) -> int:
    if topic not in ctx.storage.topics():
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if not ctx.storage.health.online:
        return ErrorCode.NOT_COORDINATOR  # the data folder is offline (dir_failure.py)
    try:
        # OffsetCommit v6+ carries the leader epoch of the record the offset follows; older
        # versions decode it as -1. OffsetFetch hands it back (librdkafka validates with it).
        ctx.offsets.commit(
            group_id,
            topic,
            partition.partition_index,
            partition.committed_offset,
            partition.committed_metadata or "",
            partition.committed_leader_epoch,
        )
    except BrokerError as error:  # OFFSET_METADATA_TOO_LARGE: the other partitions still commit
        return error.error_code
    except OSError as error:
        # Kafka answers a commit its offsets log could not store NOT_COORDINATOR
        # (GroupMetadataManager.storeOffsets maps KAFKA_STORAGE_ERROR so); the client retries.
        ctx.storage.health.fail(
            ctx.offsets.path, error, f"committing offsets of group {group_id!r}"
        )
        return ErrorCode.NOT_COORDINATOR
    return 0


async def handle_offset_fetch(
    ctx: BrokerContext, request: OffsetFetchRequest, version: int
) -> OffsetFetchResponse:
    if version >= 8:
        groups = [_fetch_group(ctx, g.group_id, g.topics) for g in request.groups]
        return OffsetFetchResponse(throttle_time_ms=0, groups=groups)
    group = _fetch_group(ctx, request.group_id, request.topics)
    legacy = [
        OffsetFetchResponse.OffsetFetchResponseTopic(
            name=t.name,
            partitions=[
                OffsetFetchResponse.OffsetFetchResponseTopic.OffsetFetchResponsePartition(
                    partition_index=p.partition_index,
                    committed_offset=p.committed_offset,
                    committed_leader_epoch=p.committed_leader_epoch,
                    metadata=p.metadata,
                    error_code=0,
                )
                for p in t.partitions
            ],
        )
        for t in group.topics
    ]
    return OffsetFetchResponse(throttle_time_ms=0, topics=legacy, error_code=0)


def _fetch_group(
    ctx: BrokerContext, group_id: str, topics: list[Any] | None
) -> OffsetFetchResponse.OffsetFetchResponseGroup:
    Group = OffsetFetchResponse.OffsetFetchResponseGroup
    Topic = Group.OffsetFetchResponseTopics
    Partition = Topic.OffsetFetchResponsePartitions
    if topics is None:  # null = every partition this group committed
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(ctx.offsets.committed(group_id)):
            wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {t.name: list(t.partition_indexes) for t in topics}
    result = []
    for name, partitions in wanted.items():
        rows = []
        for index in partitions:
            found = ctx.offsets.fetch(group_id, name, index)
            offset, metadata = found if found is not None else (-1, "")
            rows.append(
                Partition(
                    partition_index=index,
                    committed_offset=offset,
                    committed_leader_epoch=ctx.offsets.leader_epoch(group_id, name, index),
                    metadata=metadata,
                    error_code=0,
                )
            )
        result.append(Topic(name=name, partitions=rows))
    return Group(group_id=group_id, topics=result, error_code=0)


GROUP_HANDLERS = {
    ApiKey.FindCoordinator: handle_find_coordinator,
    ApiKey.JoinGroup: handle_join_group,
    ApiKey.SyncGroup: handle_sync_group,
    ApiKey.Heartbeat: handle_heartbeat,
    ApiKey.LeaveGroup: handle_leave_group,
    ApiKey.OffsetCommit: handle_offset_commit,
    ApiKey.OffsetFetch: handle_offset_fetch,
}
