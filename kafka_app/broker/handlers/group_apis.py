"""Consumer-group APIs on the wire: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
LeaveGroup, OffsetCommit and OffsetFetch. The protocol logic is in `kafka_app.broker.groups`;
these functions translate between it and Kafka's messages.
Usage: `GROUP_HANDLERS[ApiKey.JoinGroup](ctx, request, version)`.
"""

from __future__ import annotations

from kafka.protocol.api_key import ApiKey
from kafka.protocol.consumer.group import (
    HeartbeatResponse,
    JoinGroupResponse,
    LeaveGroupResponse,
    OffsetCommitResponse,
    OffsetFetchResponse,
    SyncGroupResponse,
)
from kafka.protocol.metadata.find_coordinator import FindCoordinatorResponse

from kafka_app.broker.groups import JoinRequest
from kafka_app.broker.handlers.context import NODE_ID, BrokerContext

__all__ = ["GROUP_HANDLERS"]

# JoinGroup v4+ makes new members ask twice; older clients get their id in one round trip.
_MEMBER_ID_REQUIRED_SINCE = 4


async def handle_find_coordinator(ctx: BrokerContext, request: object, version: int) -> FindCoordinatorResponse:
    host, port = ctx.advertised_host, ctx.advertised_port
    if version < 4:
        return FindCoordinatorResponse(throttle_time_ms=0, error_code=0, error_message=None,
                                       node_id=NODE_ID, host=host, port=port)
    coordinators = [
        FindCoordinatorResponse.Coordinator(key=key, node_id=NODE_ID, host=host, port=port,
                                            error_code=0, error_message=None)
        for key in request.coordinator_keys  # type: ignore[attr-defined]
    ]
    return FindCoordinatorResponse(throttle_time_ms=0, coordinators=coordinators)


async def handle_join_group(ctx: BrokerContext, request: object, version: int) -> JoinGroupResponse:
    r = request
    rebalance_timeout = r.rebalance_timeout_ms if version >= 1 else r.session_timeout_ms  # type: ignore[attr-defined]
    result = await ctx.groups.join(JoinRequest(
        group_id=r.group_id, member_id=r.member_id,  # type: ignore[attr-defined]
        client_id=_client_id(r), session_timeout_ms=r.session_timeout_ms,  # type: ignore[attr-defined]
        rebalance_timeout_ms=rebalance_timeout, protocol_type=r.protocol_type,  # type: ignore[attr-defined]
        protocols=[(p.name, bytes(p.metadata)) for p in r.protocols],  # type: ignore[attr-defined]
        require_known_member_id=version >= _MEMBER_ID_REQUIRED_SINCE,
    ))
    members = [JoinGroupResponse.JoinGroupResponseMember(member_id=m, group_instance_id=None, metadata=meta)
               for m, meta in result.members]
    return JoinGroupResponse(
        throttle_time_ms=0, error_code=result.error_code, generation_id=result.generation_id,
        protocol_type=result.protocol_type, protocol_name=result.protocol_name or "",
        leader=result.leader, skip_assignment=False, member_id=result.member_id, members=members,
    )


def _client_id(request: object) -> str:
    header = getattr(request, "header", None)
    return (getattr(header, "client_id", None) or "consumer") if header is not None else "consumer"


async def handle_sync_group(ctx: BrokerContext, request: object, version: int) -> SyncGroupResponse:
    assignments = {a.member_id: bytes(a.assignment) for a in request.assignments}  # type: ignore[attr-defined]
    result = await ctx.groups.sync(request.group_id, request.generation_id,  # type: ignore[attr-defined]
                                   request.member_id, assignments)  # type: ignore[attr-defined]
    return SyncGroupResponse(throttle_time_ms=0, error_code=result.error_code,
                             protocol_type=result.protocol_type, protocol_name=result.protocol_name,
                             assignment=result.assignment)


async def handle_heartbeat(ctx: BrokerContext, request: object, version: int) -> HeartbeatResponse:
    error = ctx.groups.heartbeat(request.group_id, request.generation_id, request.member_id)  # type: ignore[attr-defined]
    return HeartbeatResponse(throttle_time_ms=0, error_code=error)


async def handle_leave_group(ctx: BrokerContext, request: object, version: int) -> LeaveGroupResponse:
    group_id = request.group_id  # type: ignore[attr-defined]
    if version < 3:
        error = ctx.groups.leave(group_id, request.member_id)  # type: ignore[attr-defined]
        return LeaveGroupResponse(throttle_time_ms=0, error_code=error)
    members = [
        LeaveGroupResponse.MemberResponse(member_id=m.member_id, group_instance_id=m.group_instance_id,
                                          error_code=ctx.groups.leave(group_id, m.member_id))
        for m in request.members  # type: ignore[attr-defined]
    ]
    return LeaveGroupResponse(throttle_time_ms=0, error_code=0, members=members)


async def handle_offset_commit(ctx: BrokerContext, request: object, version: int) -> OffsetCommitResponse:
    r = request
    error = ctx.groups.commit_error(r.group_id, r.generation_id_or_member_epoch, r.member_id)  # type: ignore[attr-defined]
    topics = []
    for topic in r.topics:  # type: ignore[attr-defined]
        partitions = []
        for p in topic.partitions:
            code = error if error else _commit_one(ctx, r.group_id, topic.name, p)  # type: ignore[attr-defined]
            partitions.append(OffsetCommitResponse.OffsetCommitResponseTopic.OffsetCommitResponsePartition(
                partition_index=p.partition_index, error_code=code))
        topics.append(OffsetCommitResponse.OffsetCommitResponseTopic(name=topic.name, partitions=partitions))
    return OffsetCommitResponse(throttle_time_ms=0, topics=topics)


def _commit_one(ctx: BrokerContext, group_id: str, topic: str, partition: object) -> int:
    if topic not in ctx.storage.topics():
        return 3  # UNKNOWN_TOPIC_OR_PARTITION
    ctx.offsets.commit(group_id, topic, partition.partition_index,  # type: ignore[attr-defined]
                       partition.committed_offset, partition.committed_metadata or "")  # type: ignore[attr-defined]
    return 0


async def handle_offset_fetch(ctx: BrokerContext, request: object, version: int) -> OffsetFetchResponse:
    if version >= 8:
        groups = [_fetch_group(ctx, g.group_id, g.topics) for g in request.groups]  # type: ignore[attr-defined]
        return OffsetFetchResponse(throttle_time_ms=0, groups=groups)
    group = _fetch_group(ctx, request.group_id, request.topics)  # type: ignore[attr-defined]
    legacy = [
        OffsetFetchResponse.OffsetFetchResponseTopic(name=t.name, partitions=[
            OffsetFetchResponse.OffsetFetchResponseTopic.OffsetFetchResponsePartition(
                partition_index=p.partition_index, committed_offset=p.committed_offset,
                committed_leader_epoch=-1, metadata=p.metadata, error_code=0)
            for p in t.partitions])
        for t in group.topics
    ]
    return OffsetFetchResponse(throttle_time_ms=0, topics=legacy, error_code=0)


def _fetch_group(ctx: BrokerContext, group_id: str, topics: list[object] | None) -> object:
    Group = OffsetFetchResponse.OffsetFetchResponseGroup
    Topic = Group.OffsetFetchResponseTopics
    Partition = Topic.OffsetFetchResponsePartitions
    if topics is None:  # null = every partition this group committed
        wanted: dict[str, list[int]] = {}
        for topic, partition in sorted(ctx.offsets.committed(group_id)):
            wanted.setdefault(topic, []).append(partition)
    else:
        wanted = {t.name: list(t.partition_indexes) for t in topics}  # type: ignore[attr-defined]
    result = []
    for name, partitions in wanted.items():
        rows = []
        for index in partitions:
            found = ctx.offsets.fetch(group_id, name, index)
            offset, metadata = found if found is not None else (-1, "")
            rows.append(Partition(partition_index=index, committed_offset=offset,
                                  committed_leader_epoch=-1, metadata=metadata, error_code=0))
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
