"""Our broker settings as Apache Kafka's `server.properties`: a pure function, unit tested.

Every node is a combined broker and controller (KRaft). The quorum is static
(`controller.quorum.voters`), for one node as for three: a static quorum keeps no controller
address in the metadata log, so each start may pick a new free controller port, and one code
path serves both sizes.

Usage:
    node = KafkaNode(node_id=1, port=19092, controller_port=19093, log_dir=Path("kafka-data"))
    text = render(server_properties(BrokerSettings(port=19092), node, voters=[node]))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kafka_app.broker.settings import BrokerSettings

__all__ = ["KafkaNode", "advertised_host", "render", "server_properties"]

_SECOND = "SECOND"


@dataclass(frozen=True)
class KafkaNode:
    """One Kafka process: its id, its client and controller ports, its own log folder."""

    node_id: int
    port: int
    controller_port: int
    log_dir: Path


def advertised_host(host: str) -> str:
    # A wildcard bind is not an address a client can dial.
    return "127.0.0.1" if host in ("", "0.0.0.0", "::") else host


def _listeners(settings: BrokerSettings, node: KafkaNode) -> dict[str, str]:
    host, shown = settings.host, advertised_host(settings.host)
    listeners = [f"PLAINTEXT://{host}:{node.port}", f"CONTROLLER://{host}:{node.controller_port}"]
    advertised = [f"PLAINTEXT://{shown}:{node.port}"]
    protocols = ["PLAINTEXT:PLAINTEXT", "CONTROLLER:PLAINTEXT"]
    second = settings.second_listener_address()
    if second is not None:
        # Clients of the second port are told to come back at HOST:PORT (the scenarios' proxy).
        port, proxy_host, proxy_port = second
        listeners.append(f"{_SECOND}://{host}:{port}")
        advertised.append(f"{_SECOND}://{proxy_host}:{proxy_port}")
        protocols.append(f"{_SECOND}:PLAINTEXT")
    return {
        "listeners": ",".join(listeners),
        "advertised.listeners": ",".join(advertised),
        "listener.security.protocol.map": ",".join(protocols),
        "inter.broker.listener.name": "PLAINTEXT",
        "controller.listener.names": "CONTROLLER",
    }


def _replication(nodes: int) -> dict[str, str]:
    # One node cannot hold Kafka's default three replicas of its internal topics; three nodes
    # keep Kafka's defaults: three replicas, and a write needs two of them (min.insync.replicas).
    factor, min_isr = (1, 1) if nodes == 1 else (min(3, nodes), 2)
    return {
        "default.replication.factor": str(factor),
        "min.insync.replicas": str(min_isr),
        "offsets.topic.replication.factor": str(factor),
        "transaction.state.log.replication.factor": str(factor),
        "transaction.state.log.min.isr": str(min_isr),
        "share.coordinator.state.topic.replication.factor": str(factor),
        "share.coordinator.state.topic.min.isr": str(min_isr),
    }


def server_properties(
    settings: BrokerSettings, node: KafkaNode, voters: Sequence[KafkaNode]
) -> dict[str, str]:
    """Kafka's configs for `node` of a cluster whose controllers are `voters` (all nodes)."""
    quorum = ",".join(
        f"{v.node_id}@{advertised_host(settings.host)}:{v.controller_port}" for v in voters
    )
    return {
        "process.roles": "broker,controller",
        "node.id": str(node.node_id),
        "controller.quorum.voters": quorum,
        **_listeners(settings, node),
        "log.dirs": str(node.log_dir.resolve()),
        **_replication(len(voters)),
        "log.retention.check.interval.ms": str(max(1, round(settings.retention_check_sec * 1000))),
        # Internal in Kafka ("testing only"), but it is the 30 s the seed warns about.
        "log.initial.task.delay.ms": str(round(settings.retention_initial_delay_sec * 1000)),
        "group.initial.rebalance.delay.ms": str(settings.group_initial_rebalance_delay_ms),
        "auto.create.topics.enable": str(settings.auto_create_topics).lower(),
        "num.partitions": str(settings.default_partitions),
        "connections.max.idle.ms": str(settings.connections_max_idle_ms),
        "socket.request.max.bytes": str(settings.max_frame_bytes),
        "max.connections": str(settings.max_connections),
    }


def render(properties: dict[str, str]) -> str:
    """`server.properties` text; Java properties escape `\\`, and our paths may hold one."""
    return "".join(
        f"{key}={value.replace(chr(92), chr(92) * 2)}\n" for key, value in properties.items()
    )
