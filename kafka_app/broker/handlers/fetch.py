"""Fetch: reading whole record batches, with long polling.

A fetch that finds fewer than `min_bytes` waits (up to `max_wait_ms`) for the next append, then
reads again. Below the log start offset or past the end a partition answers
OFFSET_OUT_OF_RANGE carrying the log start offset and high watermark: librdkafka resets from
those without asking ListOffsets. Everything is committed on one node, so the last stable offset
equals the high watermark and read_committed consumers see every record.
Usage: `await handle_fetch(ctx, request, version)`.
"""

from __future__ import annotations

import time

from kafka.protocol.consumer.fetch import FetchRequest, FetchResponse

from kafka_app.broker.errors import BrokerError
from kafka_app.broker.handlers.context import BrokerContext

__all__ = ["handle_fetch", "FETCH_MAX_BYTES"]

_Topic = FetchResponse.FetchableTopicResponse
_Partition = _Topic.PartitionData
READ_COMMITTED = 1
# Kafka's broker setting fetch.max.bytes (55 MiB): caps what a client's max_bytes may ask for,
# so one request naming a partition many times cannot make a response of gigabytes.
FETCH_MAX_BYTES = 57_671_680


async def handle_fetch(ctx: BrokerContext, request: FetchRequest, version: int) -> FetchResponse:
    deadline = time.monotonic() + max(0, request.max_wait_ms) / 1000
    while True:
        topics, size, failed = _read_all(ctx, request)
        remaining = deadline - time.monotonic()
        if size >= request.min_bytes or failed or remaining <= 0:
            if ctx.fetch_lease is not None:
                ctx.fetch_lease.hold(size)  # released by the connection once the answer is sent
            return FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=topics)
        await ctx.appends.wait(remaining)


def _read_all(ctx: BrokerContext, request: FetchRequest) -> tuple[list[_Topic], int, bool]:
    """Read every requested partition once; returns (topics, bytes read, any partition failed)."""
    budget = min(max(0, request.max_bytes), FETCH_MAX_BYTES)
    if ctx.fetch_lease is not None:
        budget = ctx.fetch_lease.allowance(budget)  # the broker-wide cap (fetch_memory.py)
    # Kafka returns aborted_transactions only to read_committed consumers; null otherwise.
    committed_only = request.isolation_level == READ_COMMITTED
    size = 0
    failed = False
    topics = []
    for fetch_topic in request.topics:
        partitions = []
        for wanted in fetch_topic.partitions:
            limit = min(wanted.partition_max_bytes, budget - size)
            partition = _read_one(
                ctx,
                fetch_topic.topic,
                wanted.partition,
                wanted.fetch_offset,
                limit,
                first=size == 0,
                committed_only=committed_only,
            )
            size += len(partition.records)
            failed = failed or partition.error_code != 0
            partitions.append(partition)
        topics.append(_Topic(topic=fetch_topic.topic, partitions=partitions))
    return topics, size, failed


def _read_one(
    ctx: BrokerContext,
    topic: str,
    index: int,
    offset: int,
    limit: int,
    first: bool,
    committed_only: bool,
) -> _Partition:
    aborted = [] if committed_only else None
    try:
        log = ctx.storage.partition(topic, index)
        # Storage always returns at least one batch; only the first partition with data may
        # exceed the limits, so a batch behind a full response waits for the next fetch.
        records = log.read(offset, max(limit, 1)) if first or limit > 0 else b""
        if not first and len(records) > limit:
            records = b""
        hwm = log.high_watermark
        return _Partition(
            partition_index=index,
            error_code=0,
            high_watermark=hwm,
            last_stable_offset=hwm,
            log_start_offset=log.log_start_offset,
            aborted_transactions=aborted,
            preferred_read_replica=-1,
            records=records,
        )
    except BrokerError as error:
        # Kafka's ReplicaManager answers a failed read with -1 (unknown) for the high watermark
        # and log start, OFFSET_OUT_OF_RANGE included (measured on 4.1.2): clients ask
        # ListOffsets where to reset, so each client's reset policy shows the same on both.
        return _Partition(
            partition_index=index,
            error_code=error.error_code,
            high_watermark=-1,
            last_stable_offset=-1,
            log_start_offset=-1,
            aborted_transactions=aborted,
            preferred_read_replica=-1,
            records=b"",
        )
