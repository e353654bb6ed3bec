"""The idempotent producer on the wire, on both brokers: a producer id from InitProducerId, a
resent batch answered with its first offset and stored once, a sequence gap and an old epoch
refused. Raw requests, so each broker's exact answer is checked (clients hide them in retries).

(test_crash_e2e.py resends a batch across a kill -9 of the embedded broker; the client-level
checks, idempotence on and off with librdkafka, are in test_interop_confluent.py.)
"""

from __future__ import annotations

from kafka.protocol.producer.produce import ProduceRequest
from kafka.protocol.producer.transaction import InitProducerIdRequest
from kafka.record.default_records import DefaultRecordBatchBuilder

from tests.kafka_app.broker.broker_helpers import create_topic, log_end, raw_call, wait_until

COORDINATOR_LOAD_IN_PROGRESS = 14
OUT_OF_ORDER_SEQUENCE_NUMBER = 45
INVALID_PRODUCER_EPOCH = 47


def _producer_id(port: int) -> tuple[int, int]:
    """(producer id, epoch) that InitProducerId hands an idempotent producer (no transactional id).
    A fresh Apache Kafka first answers COORDINATOR_LOAD_IN_PROGRESS while it gets a block of ids
    from its controller; clients retry it, and so does this."""

    def answer() -> object:
        request = InitProducerIdRequest[4](
            transactional_id=None, transaction_timeout_ms=-1, producer_id=-1, producer_epoch=-1
        )
        response = raw_call(port, request, 4)
        assert response.error_code in (0, COORDINATOR_LOAD_IN_PROGRESS), response
        return response if response.error_code == 0 else None

    response = wait_until(answer, 30, "a producer id")
    return response.producer_id, response.producer_epoch


def _send(port: int, topic: str, producer: tuple[int, int], sequence: int) -> tuple[int, int]:
    """(error code, base offset) of one batch of three records from `producer` at `sequence`."""
    producer_id, epoch = producer
    builder = DefaultRecordBatchBuilder(
        magic=2,
        compression_type=0,
        is_transactional=False,
        producer_id=producer_id,
        producer_epoch=epoch,
        base_sequence=sequence,
        batch_size=1 << 20,
    )
    for delta in range(3):
        builder.append(delta, -1, None, b"%d" % (sequence + delta), [])
    Data = ProduceRequest.TopicProduceData
    request = ProduceRequest[8](
        transactional_id=None,
        acks=-1,
        timeout_ms=5_000,
        topic_data=[
            Data(
                name=topic,
                partition_data=[Data.PartitionProduceData(index=0, records=bytes(builder.build()))],
            )
        ],
    )
    answer = raw_call(port, request, 8).responses[0].partition_responses[0]
    return answer.error_code, answer.base_offset


def test_a_resent_batch_gets_its_first_offset_and_is_stored_once(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "once")
    producer = _producer_id(kafka_broker.port)
    assert _send(kafka_broker.port, "once", producer, 0) == (0, 0)
    assert _send(kafka_broker.port, "once", producer, 3) == (0, 3)
    assert _send(kafka_broker.port, "once", producer, 3) == (0, 3)  # the resend of the last batch
    assert _send(kafka_broker.port, "once", producer, 0) == (0, 0)  # one of the last five
    assert log_end(kafka_broker.bootstrap_servers, "once") == 6


def test_a_sequence_gap_is_out_of_order(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "gap")
    producer = _producer_id(kafka_broker.port)
    assert _send(kafka_broker.port, "gap", producer, 0) == (0, 0)
    assert _send(kafka_broker.port, "gap", producer, 7)[0] == OUT_OF_ORDER_SEQUENCE_NUMBER
    assert log_end(kafka_broker.bootstrap_servers, "gap") == 3


def test_a_newer_epoch_starts_at_zero_and_fences_the_older(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "epochs")
    producer_id, epoch = _producer_id(kafka_broker.port)
    assert _send(kafka_broker.port, "epochs", (producer_id, epoch), 0) == (0, 0)
    assert _send(kafka_broker.port, "epochs", (producer_id, epoch + 1), 0) == (0, 3)
    assert _send(kafka_broker.port, "epochs", (producer_id, epoch), 3)[0] == INVALID_PRODUCER_EPOCH
    assert log_end(kafka_broker.bootstrap_servers, "epochs") == 6
