"""The broker's answers on the wire, checked with raw frames: versions, metadata, topic admin.
Tests taking `kafka_broker` run on both brokers; the ApiVersions ones check the embedded broker's
own table (Kafka advertises more APIs and newer versions)."""

from __future__ import annotations

import socket

import pytest
from kafka.protocol.admin.topics import CreateTopicsRequest
from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse
from kafka.protocol.metadata.metadata import MetadataRequest

from kafka_app.broker.wire.versions import API_VERSIONS
from tests.kafka_app.broker.broker_helpers import create_topic, raw_call, recv_frame, topic_names


def test_api_versions_lists_the_advertised_ranges(embedded_broker) -> None:
    response = raw_call(
        embedded_broker.port,
        ApiVersionsRequest[3](client_software_name="t", client_software_version="1"),
        3,
    )
    assert response.error_code == 0
    advertised = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
    assert advertised[1] == (4, 12)  # Fetch: below topic ids
    assert advertised == {
        int(key): (s.min_version, s.max_version) for key, s in API_VERSIONS.items()
    }


def test_api_versions_of_an_unknown_version_answers_35_in_v0(embedded_broker) -> None:
    with socket.create_connection(("127.0.0.1", embedded_broker.port), timeout=10) as sock:
        request = ApiVersionsRequest[0]()
        request.with_header(correlation_id=77, client_id="future-client")
        frame = bytearray(request.encode(header=True, framed=True))
        frame[6:8] = (9).to_bytes(2, "big")  # claim ApiVersions v9, which nobody speaks yet
        sock.sendall(bytes(frame))
        body = recv_frame(sock)
    response = ApiVersionsResponse.decode(body, version=0, header=True)
    assert response.header.correlation_id == 77
    assert response.error_code == 35
    assert any(k.api_key == 18 and k.max_version == 4 for k in response.api_keys)


def test_metadata_advertises_one_node_and_knows_topics(kafka_broker) -> None:
    node = kafka_broker.node_id
    create_topic(kafka_broker.bootstrap_servers, "orders", partitions=3)
    request = MetadataRequest[12](
        topics=[
            MetadataRequest.MetadataRequestTopic(name=n) for n in ("orders", "missing", "bad/name")
        ],
        allow_auto_topic_creation=True,
    )
    response = raw_call(kafka_broker.port, request, 12)
    assert [(b.node_id, b.host, b.port) for b in response.brokers] == [
        (node, "127.0.0.1", kafka_broker.port)
    ]
    assert response.controller_id == node
    by_name = {t.name: t for t in response.topics}
    # Kafka lists partitions in its own order ([1, 2, 0] seen): clients go by the index.
    assert sorted(p.partition_index for p in by_name["orders"].partitions) == [0, 1, 2]
    assert all(p.leader_id == node and p.isr_nodes == [node] for p in by_name["orders"].partitions)
    assert by_name["missing"].error_code == 3  # auto-create is off (both brokers' setting)
    assert by_name["bad/name"].error_code == 17


def test_metadata_v0_empty_list_means_all_topics(kafka_broker) -> None:
    create_topic(kafka_broker.bootstrap_servers, "a")
    response = raw_call(kafka_broker.port, MetadataRequest[0](topics=[]), 0)
    # Kafka lists its internal __consumer_offsets too, and the session's warm-up topic.
    assert "a" in [t.name for t in response.topics]
    if kafka_broker.kind == "embedded":
        assert [t.name for t in response.topics] == ["a"]


@pytest.mark.parametrize("factor, expected", [(1, 0), (-1, 0), (3, 38)])
def test_create_topics_accepts_only_replication_factor_one(
    kafka_broker, factor: int, expected: int
) -> None:
    topic = CreateTopicsRequest.CreatableTopic(
        name=f"rf{factor + 1}",
        num_partitions=2,
        replication_factor=factor,
        assignments=[],
        configs=[],
    )
    response = raw_call(
        kafka_broker.port,
        CreateTopicsRequest[7](topics=[topic], timeout_ms=5000, validate_only=False),
        7,
    )
    assert response.topics[0].error_code == expected


def test_create_topics_validate_only_creates_nothing_and_reports_bad_configs(kafka_broker) -> None:
    Topic, Config = (
        CreateTopicsRequest.CreatableTopic,
        CreateTopicsRequest.CreatableTopic.CreatableTopicConfig,
    )
    good = Topic(
        name="dry",
        num_partitions=1,
        replication_factor=1,
        assignments=[],
        configs=[Config(name="retention.ms", value="1000")],
    )
    bad = Topic(
        name="wet",
        num_partitions=1,
        replication_factor=1,
        assignments=[],
        configs=[Config(name="retention.mss", value="1000")],
    )
    response = raw_call(
        kafka_broker.port,
        CreateTopicsRequest[7](topics=[good, bad], timeout_ms=5000, validate_only=True),
        7,
    )
    assert [t.error_code for t in response.topics] == [0, 40]
    configs = {c.name: (c.value, c.config_source) for c in response.topics[0].configs}
    assert configs["retention.ms"] == ("1000", 1)
    assert configs["segment.ms"][1] == 5
    assert not {"dry", "wet"} & topic_names(kafka_broker.bootstrap_servers)


def test_auto_create_when_enabled(tmp_path, free_port) -> None:
    from kafka_app.broker import BrokerSettings, EmbeddedBroker

    settings = BrokerSettings(
        port=free_port, data_dir=tmp_path, auto_create_topics=True, default_partitions=2
    )
    with EmbeddedBroker(settings) as broker:
        request = MetadataRequest[12](
            topics=[MetadataRequest.MetadataRequestTopic(name="fresh")],
            allow_auto_topic_creation=True,
        )
        response = raw_call(broker.port, request, 12)
        assert response.topics[0].error_code == 0
        assert len(response.topics[0].partitions) == 2
        assert broker.call(broker.storage.topics) == {"fresh": 2}


def test_a_wildcard_bind_advertises_loopback(tmp_path, free_port) -> None:
    from kafka_app.broker import BrokerSettings, EmbeddedBroker

    with EmbeddedBroker(
        BrokerSettings(host="0.0.0.0", port=free_port, data_dir=tmp_path)
    ) as broker:
        response = raw_call(broker.port, MetadataRequest[12](topics=None), 12)
        assert [(b.host, b.port) for b in response.brokers] == [("127.0.0.1", free_port)]
        assert broker.bootstrap_servers == f"127.0.0.1:{free_port}"
