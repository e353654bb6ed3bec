"""Produce and InitProducerId: appending record batches, and handing out producer ids.

Each partition's records (one or more v2 batches, exactly as the client sent them) are one
append; storage assigns the offsets. acks=0 gets no response at all, as in Kafka. An idempotent
producer's resend of a batch already stored (its acknowledgement was lost, e.g. to a broker
restart) is answered with the first write's offset and not written again (see producer_state.py).
Usage: `await handle_produce(ctx, request, version)`.
"""

from __future__ import annotations

import logging

from kafka.protocol.producer.produce import ProduceRequest, ProduceResponse
from kafka.protocol.producer.transaction import InitProducerIdRequest, InitProducerIdResponse

from kafka_app.broker.errors import BrokerError, CorruptRecord, TransactionsUnsupported
from kafka_app.broker.handlers.context import BrokerContext

__all__ = ["handle_produce", "handle_init_producer_id", "NO_TRANSACTIONS"]

log = logging.getLogger(__name__)

KAFKA_STORAGE_ERROR = 56
NO_TRANSACTIONS = TransactionsUnsupported(
    "this broker has no transaction coordinator: transactional producers are not supported; "
    "use an idempotent producer (enable.idempotence) or Apache Kafka"
)
_Topic = ProduceResponse.TopicProduceResponse
_Partition = _Topic.PartitionProduceResponse


async def handle_produce(
    ctx: BrokerContext, request: ProduceRequest, version: int
) -> ProduceResponse | None:
    topics = []
    appended = False
    for topic_data in request.topic_data:
        partitions = []
        for data in topic_data.partition_data:
            result = _append(ctx, topic_data.name, data.index, data.records)
            appended = appended or result.error_code == 0
            partitions.append(result)
        topics.append(_Topic(name=topic_data.name, partition_responses=partitions))
    if appended:
        ctx.appends.notify()
    if request.acks == 0:
        return None
    return ProduceResponse(responses=topics, throttle_time_ms=0)


def _append(ctx: BrokerContext, topic: str, partition: int, records: bytes | None) -> _Partition:
    try:
        if not records:
            raise CorruptRecord(f"empty produce request for {topic}-{partition}")
        log_ = ctx.storage.partition(topic, partition)
        appended = log_.append_batches(records)
        return _Partition(
            index=partition,
            error_code=0,
            base_offset=appended.base_offset,
            log_append_time_ms=appended.log_append_time_ms,
            log_start_offset=log_.log_start_offset,
        )
    except BrokerError as error:
        log.warning("Produce to %s-%d refused: %s", topic, partition, error)
        return _failed(partition, error.error_code, str(error))
    except OSError as error:
        # Disk full or a vanished folder: Kafka answers KAFKA_STORAGE_ERROR, the client retries.
        log.error("Produce to %s-%d failed writing to disk: %s", topic, partition, error)
        return _failed(partition, KAFKA_STORAGE_ERROR, f"cannot write to disk: {error}")


def _failed(partition: int, error_code: int, message: str) -> _Partition:
    return _Partition(
        index=partition,
        error_code=error_code,
        base_offset=-1,
        log_append_time_ms=-1,
        log_start_offset=-1,
        error_message=message,
    )


async def handle_init_producer_id(
    ctx: BrokerContext, request: InitProducerIdRequest, version: int
) -> InitProducerIdResponse:
    if request.transactional_id is not None:
        log.warning(
            "Refused transactional producer %r: %s", request.transactional_id, NO_TRANSACTIONS
        )
        return InitProducerIdResponse(
            throttle_time_ms=0,
            error_code=NO_TRANSACTIONS.error_code,
            producer_id=-1,
            producer_epoch=-1,
        )
    producer_id = next(ctx.producer_ids)
    return InitProducerIdResponse(
        throttle_time_ms=0, error_code=0, producer_id=producer_id, producer_epoch=0
    )
