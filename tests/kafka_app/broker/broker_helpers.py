"""Helpers for the broker tests: speak raw Kafka frames, create topics, wait for conditions.

Usage: `response = raw_call(port, MetadataRequest[12](topics=None), 12)`.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.admin import NewTopic
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.consumer.offsets import ListOffsetsRequest
from kafka.protocol.metadata.metadata import MetadataRequest

from kafka_app.broker.settings import BrokerSettings
from launch import waiting
from launch.errors import WaitTimeout

__all__ = [
    "admin",
    "api_versions_answered",
    "committed_offset",
    "create_topic",
    "delete_records_before",
    "leads_every_partition",
    "listening",
    "log_end",
    "log_start",
    "own_node",
    "partition_count",
    "quick_broker_settings",
    "raw_call",
    "recv_frame",
    "send_frame",
    "topic_names",
    "wait_until",
]

T = TypeVar("T")
_TIMEOUT_SEC = 10.0


def send_frame(
    sock: socket.socket, request: ApiMessage, version: int, correlation_id: int = 1
) -> None:
    request.API_VERSION = version
    request.with_header(correlation_id=correlation_id, client_id="broker-test")
    sock.sendall(bytes(request.encode(header=True, framed=True)))


def recv_frame(sock: socket.socket) -> bytes:
    """One whole response frame (without its length prefix); raises ConnectionError on EOF."""
    size = struct.unpack(">i", _recv_exactly(sock, 4))[0]
    return _recv_exactly(sock, size)


def _recv_exactly(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError(f"connection closed after {len(data)} of {count} bytes")
        data += chunk
    return data


def api_versions_answered(port: int, correlation_id: int = 1, timeout_sec: float = 5.0) -> bool:
    """A fresh connection's ApiVersions v0 gets its own answer within `timeout_sec`: the question
    every robustness test asks after sending something nasty on another connection."""
    body = struct.pack(">hhih", 18, 0, correlation_id, 5) + b"probe"
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout_sec) as probe:
            probe.sendall(struct.pack(">i", len(body)) + body)
            answer = recv_frame(probe)
    except OSError:
        return False
    return struct.unpack_from(">i", answer)[0] == correlation_id


def listening(port: int) -> bool:
    """Whether a broker accepts connections on 127.0.0.1:`port` (a started process is ready)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def quick_broker_settings(port: int, data_dir: Path, **overrides: object) -> BrokerSettings:
    """A broker for tests: retention checked every second from the start, groups rebalance at
    once, so no test waits for Kafka's production delays."""
    return BrokerSettings(
        port=port,
        data_dir=data_dir,
        retention_check_sec=1,
        retention_initial_delay_sec=0,
        group_initial_rebalance_delay_ms=0,
        **overrides,
    )  # type: ignore[arg-type]


def raw_call(port: int, request: ApiMessage, version: int) -> ApiMessage:
    """Send one request on a fresh connection and decode the response of the same API/version."""
    with socket.create_connection(("127.0.0.1", port), timeout=_TIMEOUT_SEC) as sock:
        send_frame(sock, request, version)
        frame = recv_frame(sock)
    response_class = request.header.get_response_class()
    return response_class.decode(frame, version=version, header=True)


def admin(bootstrap: str) -> KafkaAdminClient:
    return KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10_000)


def create_topic(
    bootstrap: str, name: str, partitions: int = 1, configs: dict[str, str] | None = None
) -> None:
    client = admin(bootstrap)
    try:
        result = client.create_topics([NewTopic(name, partitions, 1, topic_configs=configs or {})])
        errors = [t["error_code"] for t in result["topics"]] if isinstance(result, dict) else []
        assert not any(errors), result
    finally:
        client.close()
    wait_until(
        lambda: leads_every_partition(int(bootstrap.rsplit(":", 1)[1]), name),
        30,
        f"the broker to lead every partition of {name}",
    )


def leads_every_partition(port: int, topic: str) -> bool:
    """Whether the broker serves every partition of `topic` as leader. Metadata naming a leader is
    not enough on Apache Kafka: its KRaft broker publishes the new image to the metadata cache a
    moment before its replica manager takes the partition, and in between a raw Produce gets
    NOT_LEADER_OR_FOLLOWER (clients retry it, raw calls do not; CI met it once). ListOffsets is
    answered by the replica manager, so it waits for the second step too."""
    request = MetadataRequest[12](
        topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
    )
    [answer] = raw_call(port, request, 12).topics
    named = (
        answer.error_code == 0
        and bool(answer.partitions)
        and all(p.error_code == 0 and p.leader_id >= 0 for p in answer.partitions)
    )
    return named and _answers_list_offsets(
        port, topic, [p.partition_index for p in answer.partitions]
    )


def _answers_list_offsets(port: int, topic: str, partitions: list[int]) -> bool:
    Offsets = ListOffsetsRequest.ListOffsetsTopic
    request = ListOffsetsRequest[9](
        replica_id=-1,
        isolation_level=0,
        topics=[
            Offsets(
                name=topic,
                partitions=[
                    Offsets.ListOffsetsPartition(
                        partition_index=index, current_leader_epoch=-1, timestamp=-1
                    )
                    for index in partitions
                ],
            )
        ],
    )
    return all(p.error_code == 0 for t in raw_call(port, request, 9).topics for p in t.partitions)


def wait_until(
    condition: Callable[[], T], timeout_sec: float, what: str, every_sec: float = 0.1
) -> T:
    """Poll `condition` until it returns something truthy (the scenarios' own wait, so tests
    and scenarios wait alike); a timeout is a test failure naming `what`."""
    try:
        return waiting.wait_until(
            lambda: condition() or None, timeout=timeout_sec, what=what, poll=every_sec
        )
    except WaitTimeout as timeout:
        raise AssertionError(str(timeout)) from None


# ---- what any client can see: the same questions to either broker -----------------------------


def own_node(brokers: list[int], node_id: int) -> list[int]:
    """A replica list written for the embedded broker (node 0) in terms of `node_id`."""
    return [node_id if broker == 0 else broker for broker in brokers]


def topic_names(bootstrap: str) -> set[str]:
    """The topics a client sees, Kafka's internal ones (`__consumer_offsets`) left out."""
    client = admin(bootstrap)
    try:
        return {name for name in client.list_topics() if not name.startswith("__")}
    finally:
        client.close()


def partition_count(bootstrap: str, topic: str) -> int:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        return len(consumer.partitions_for_topic(topic) or ())
    finally:
        consumer.close()


def log_start(bootstrap: str, topic: str, partition: int = 0) -> int:
    """The partition's log start offset, as ListOffsets EARLIEST reports it."""
    return _list_offset(bootstrap, TopicPartition(topic, partition), earliest=True)


def log_end(bootstrap: str, topic: str, partition: int = 0) -> int:
    """The partition's log end offset (high watermark), as ListOffsets LATEST reports it."""
    return _list_offset(bootstrap, TopicPartition(topic, partition), earliest=False)


def _list_offset(bootstrap: str, tp: TopicPartition, earliest: bool) -> int:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap)
    try:
        found = consumer.beginning_offsets([tp]) if earliest else consumer.end_offsets([tp])
        return found[tp]
    finally:
        consumer.close()


def delete_records_before(bootstrap: str, topic: str, offset: int, partition: int = 0) -> None:
    """DeleteRecords through the admin client: the log start offset moves to `offset`."""
    client = admin(bootstrap)
    try:
        client.delete_records({TopicPartition(topic, partition): offset})
    finally:
        client.close()


def committed_offset(bootstrap: str, group: str, topic: str, partition: int = 0) -> int | None:
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        return consumer.committed(TopicPartition(topic, partition))
    finally:
        consumer.close()
