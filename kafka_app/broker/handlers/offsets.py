"""ListOffsets and DeleteRecords: where a partition starts and ends, and moving its start.

ListOffsets: -2 is the log start offset ("earliest"), -1 the high watermark ("latest"), -3 the
offset and timestamp of the record with the largest timestamp, any other value a timestamp: the
first offset whose record is at or after it, else -1. DeleteRecords moves the log start offset
(-1 = the high watermark); its reply's low watermark is the new log start offset.
Usage: `await handle_list_offsets(ctx, request, version)`.
"""

from __future__ import annotations

from collections import Counter

from kafka.protocol.admin.topics import DeleteRecordsRequest, DeleteRecordsResponse
from kafka.protocol.consumer.offsets import ListOffsetsRequest, ListOffsetsResponse

from kafka_app.broker.errors import BrokerError
from kafka_app.broker.handlers.context import BrokerContext
from kafka_app.broker.storage.data_dir import PartitionLog

__all__ = ["handle_list_offsets", "handle_delete_records", "EARLIEST", "LATEST"]

EARLIEST = -2
LATEST = -1
MAX_TIMESTAMP = -3
INVALID_REQUEST = 42
_LTopic = ListOffsetsResponse.ListOffsetsTopicResponse
_LPartition = _LTopic.ListOffsetsPartitionResponse
_DTopic = DeleteRecordsResponse.DeleteRecordsTopicResult
_DPartition = _DTopic.DeleteRecordsPartitionResult


async def handle_list_offsets(
    ctx: BrokerContext, request: ListOffsetsRequest, version: int
) -> ListOffsetsResponse:
    # Kafka's rule (ListOffsetsRequest.duplicatePartitions): a partition named twice is answered
    # INVALID_REQUEST each time and not looked up, so a request cannot repeat one lookup forever.
    named = Counter((t.name, p.partition_index) for t in request.topics for p in t.partitions)
    topics = [
        _LTopic(
            name=topic.name,
            partitions=[
                _duplicate(p.partition_index)
                if named[topic.name, p.partition_index] > 1
                else _list_one(ctx, topic.name, p.partition_index, p.timestamp)
                for p in topic.partitions
            ],
        )
        for topic in request.topics
    ]
    return ListOffsetsResponse(throttle_time_ms=0, topics=topics)


def _duplicate(index: int) -> _LPartition:
    return _LPartition(
        partition_index=index, error_code=INVALID_REQUEST, timestamp=-1, offset=-1, leader_epoch=-1
    )


def _list_one(ctx: BrokerContext, topic: str, index: int, timestamp: int) -> _LPartition:
    try:
        offset, found_timestamp = _lookup(ctx.storage.partition(topic, index), timestamp)
    except BrokerError as error:
        return _LPartition(
            partition_index=index,
            error_code=error.error_code,
            timestamp=-1,
            offset=-1,
            leader_epoch=-1,
        )
    return _LPartition(
        partition_index=index,
        error_code=0,
        timestamp=found_timestamp,
        offset=offset,
        leader_epoch=-1,
    )


def _lookup(log_: PartitionLog, timestamp: int) -> tuple[int, int]:
    if timestamp == EARLIEST:
        return log_.log_start_offset, -1
    if timestamp == LATEST:
        return log_.high_watermark, -1
    if timestamp == MAX_TIMESTAMP:
        found = log_.offset_of_max_timestamp()
        return found if found is not None else (-1, -1)
    found = log_.offset_for_timestamp(timestamp)
    return found if found is not None else (-1, -1)


async def handle_delete_records(
    ctx: BrokerContext, request: DeleteRecordsRequest, version: int
) -> DeleteRecordsResponse:
    topics = [
        _DTopic(
            name=topic.name,
            partitions=[
                _delete_one(ctx, topic.name, p.partition_index, p.offset) for p in topic.partitions
            ],
        )
        for topic in request.topics
    ]
    return DeleteRecordsResponse(throttle_time_ms=0, topics=topics)


def _delete_one(ctx: BrokerContext, topic: str, index: int, offset: int) -> _DPartition:
    try:
        new_start = ctx.storage.partition(topic, index).delete_records(offset)  # storage logs it
    except BrokerError as error:
        return _DPartition(partition_index=index, low_watermark=-1, error_code=error.error_code)
    return _DPartition(partition_index=index, low_watermark=new_start, error_code=0)
