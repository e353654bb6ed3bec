"""How soon a fresh kafka-python consumer gets its first record, and why it is not sooner.

A fresh consumer's bootstrap Metadata asks for no topics (`topics=[]`); Kafka answers that with
no topics, so the consumer learns its partition's leader from a second Metadata, which
kafka-python sends only `retry_backoff_ms` (100 ms by default) after the first. That backoff,
not the broker, is most of the ~110 ms to the first record. tansu answers `[]` with every
topic and so skips it; the broker keeps Kafka's answer. Tests taking `kafka_broker` hold Apache
Kafka to the same bounds (with --slow).
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.protocol.consumer.fetch import FetchRequest
from kafka.protocol.consumer.offsets import ListOffsetsRequest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest
from kafka.protocol.metadata.metadata import MetadataRequest

from tests.kafka_app.broker.broker_helpers import create_topic, raw_call

_Offsets = ListOffsetsRequest.ListOffsetsTopic
_TRIES = 3
# kafka-python's default fetch_max_wait_ms: a broker holding the first Fetch until it runs out
# would put every first record at least this late.
_FETCH_MAX_WAIT_MS = 500


def _first_record_ms(bootstrap: str, topic: str, **settings: Any) -> float:
    """Constructor to first record of a fresh consumer reading `topic` from the beginning."""
    started = time.monotonic()
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, **settings)
    try:
        partition = TopicPartition(topic, 0)
        consumer.assign([partition])
        consumer.seek_to_beginning(partition)
        deadline = started + 10
        while not consumer.poll(timeout_ms=200, max_records=1):
            assert time.monotonic() < deadline, "no record within 10 s"
        return (time.monotonic() - started) * 1000
    finally:
        consumer.close()


def _median_first_record_ms(bootstrap: str, topic: str, bound_ms: float, **settings: Any) -> float:
    """Median over a few fresh consumers; one more series if a burst of load spoiled the first."""
    median = statistics.median(
        _first_record_ms(bootstrap, topic, **settings) for _ in range(_TRIES)
    )
    if median >= bound_ms:
        median = statistics.median(
            _first_record_ms(bootstrap, topic, **settings) for _ in range(_TRIES)
        )
    return median


def _topic_with_records(bootstrap: str, topic: str) -> None:
    create_topic(bootstrap, topic)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(10):
        producer.send(topic, value=b"%d" % i, partition=0)
    producer.flush(10)
    producer.close(5)


def test_metadata_v1_and_later_empty_list_means_no_topics(kafka_broker) -> None:
    """Kafka's rule (MetadataRequest.isAllTopics: null, not [], means all from v1 on)."""
    create_topic(kafka_broker.bootstrap_servers, "a")
    response = raw_call(kafka_broker.port, MetadataRequest[12](topics=[]), 12)
    assert response.topics == []


def test_fresh_default_consumer_is_not_held_by_fetch_max_wait(kafka_broker) -> None:
    """The first Fetch finds records and is answered at once, not after fetch_max_wait_ms."""
    _topic_with_records(kafka_broker.bootstrap_servers, "first")
    median = _median_first_record_ms(kafka_broker.bootstrap_servers, "first", _FETCH_MAX_WAIT_MS)
    assert median < _FETCH_MAX_WAIT_MS, f"median {median:.0f} ms to the first record"


def test_the_brokers_answers_to_a_fresh_consumer_take_milliseconds(kafka_broker) -> None:
    """The requests a fresh consumer sends before its first record, each on a new connection.

    kafka-python 3.0 ignores `retry_backoff_ms` for its Metadata refresh (always 100 ms), so
    the consumer itself cannot show the broker's part; these raw requests can.
    """
    _topic_with_records(kafka_broker.bootstrap_servers, "first")
    port = kafka_broker.port

    def replay_ms() -> float:
        started = time.monotonic()
        raw_call(
            port, ApiVersionsRequest[3](client_software_name="t", client_software_version="1"), 3
        )
        assert raw_call(port, MetadataRequest[12](topics=[]), 12).topics == []
        wanted = [MetadataRequest.MetadataRequestTopic(name="first")]
        assert raw_call(port, MetadataRequest[12](topics=wanted), 12).topics[0].error_code == 0
        earliest = raw_call(
            port,
            ListOffsetsRequest[9](
                replica_id=-1,
                isolation_level=0,
                topics=[
                    _Offsets(
                        name="first",
                        partitions=[
                            _Offsets.ListOffsetsPartition(
                                partition_index=0, current_leader_epoch=-1, timestamp=-2
                            )
                        ],
                    )
                ],
            ),
            9,
        )
        assert earliest.topics[0].partitions[0].offset == 0
        fetched = raw_call(port, _fetch_request("first", offset=0), 12)
        assert fetched.responses[0].partitions[0].records
        return (time.monotonic() - started) * 1000

    median = statistics.median(replay_ms() for _ in range(_TRIES))
    if median >= 50:  # a burst of load on a shared machine: measure once more
        median = statistics.median(replay_ms() for _ in range(_TRIES))
    assert median < 50, f"median {median:.0f} ms for the broker's five answers"


def _fetch_request(topic: str, offset: int) -> FetchRequest:
    """A Fetch as kafka-python's defaults send it: wait up to 500 ms for at least one byte."""
    Topic = FetchRequest.FetchTopic
    return FetchRequest[12](
        replica_id=-1,
        max_wait_ms=_FETCH_MAX_WAIT_MS,
        min_bytes=1,
        max_bytes=52428800,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            Topic(
                topic=topic,
                partitions=[
                    Topic.FetchPartition(
                        partition=0,
                        current_leader_epoch=-1,
                        fetch_offset=offset,
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=1048576,
                    )
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id="",
    )
