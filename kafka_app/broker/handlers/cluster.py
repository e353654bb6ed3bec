"""ApiVersions and Metadata: how a client learns what we speak and where topics live.

There is one node (id 0, at the address the server is bound to); it leads every partition, is the
only replica and in-sync replica, and is the controller.
Usage: `await handle_metadata(ctx, request, version)` returns a MetadataResponse.
"""

from __future__ import annotations

import logging

from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafka.protocol.metadata.metadata import MetadataRequest, MetadataResponse

from kafka_app.broker.errors import BrokerError, UnknownTopicOrPartition
from kafka_app.broker.handlers.context import CLUSTER_ID, NODE_ID, BrokerContext
from kafka_app.broker.storage.data_dir import validate_topic_name
from kafka_app.broker.wire.versions import API_VERSIONS

__all__ = ["api_versions_body", "handle_api_versions", "handle_metadata", "UNSUPPORTED_VERSION"]

log = logging.getLogger(__name__)

UNSUPPORTED_VERSION = 35
_Topic = MetadataResponse.MetadataResponseTopic
_Partition = _Topic.MetadataResponsePartition


def api_versions_body(error_code: int = 0) -> ApiVersionsResponse:
    """The list of APIs and version ranges we advertise (version set by the caller)."""
    keys = [
        ApiVersionsResponse.ApiVersion(
            api_key=int(key), min_version=spec.min_version, max_version=spec.max_version
        )
        for key, spec in sorted(API_VERSIONS.items())
    ]
    return ApiVersionsResponse(error_code=error_code, api_keys=keys, throttle_time_ms=0)


async def handle_api_versions(
    ctx: BrokerContext, request: ApiVersionsRequest, version: int
) -> ApiVersionsResponse:
    return api_versions_body()


async def handle_metadata(
    ctx: BrokerContext, request: MetadataRequest, version: int
) -> MetadataResponse:
    requested = request.topics
    # v0 has no null: an empty list means "all topics" there; from v1 null means all, [] means none.
    if requested is None or (version == 0 and not requested):
        names = sorted(ctx.storage.topics())
    else:
        names = list(dict.fromkeys(t.name for t in requested))  # Kafka answers each name once
    auto_create = ctx.settings.auto_create_topics and (
        version < 4 or bool(request.allow_auto_topic_creation)
    )
    topics = [_describe_topic(ctx, name, auto_create) for name in names]
    broker = MetadataResponse.MetadataResponseBroker(
        node_id=NODE_ID, host=ctx.advertised_host, port=ctx.advertised_port, rack=None
    )
    return MetadataResponse(
        throttle_time_ms=0,
        brokers=[broker],
        cluster_id=CLUSTER_ID,
        controller_id=NODE_ID,
        topics=topics,
    )


def _describe_topic(ctx: BrokerContext, name: str, auto_create: bool) -> _Topic:
    try:
        validate_topic_name(name)
        partitions = ctx.storage.topics().get(name)
        if partitions is None and auto_create:
            ctx.storage.create_topic(name, ctx.settings.default_partitions, {})
            log.info(
                "Auto-created topic %s with %d partition(s)", name, ctx.settings.default_partitions
            )
            partitions = ctx.settings.default_partitions
        if partitions is None:
            raise UnknownTopicOrPartition(f"unknown topic {name}")
    except BrokerError as error:
        return _Topic(error_code=error.error_code, name=name, is_internal=False, partitions=[])
    return _Topic(
        error_code=0,
        name=name,
        is_internal=False,
        partitions=[_partition(index) for index in range(partitions)],
    )


def _partition(index: int) -> _Partition:
    # Leader epoch -1 = "unknown": clients then skip epoch validation (OffsetForLeaderEpoch),
    # which a single node that never changes leaders has no use for.
    return _Partition(
        error_code=0,
        partition_index=index,
        leader_id=NODE_ID,
        leader_epoch=-1,
        replica_nodes=[NODE_ID],
        isr_nodes=[NODE_ID],
        offline_replicas=[],
    )
