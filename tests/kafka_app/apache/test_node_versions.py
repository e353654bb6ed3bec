"""A node's version is its jars: swapped only while it is down, checked before it is stopped,
and read back from what the JVM logs since its start. No JVM here: the rolling upgrade itself is
the kafka-upgrade scenario's (tests/scenarios/catalog/test_kafka_upgrade_e2e.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_app.apache.cluster import ApacheKafka
from kafka_app.apache.config import KafkaNode
from kafka_app.apache.errors import ApacheKafkaError
from kafka_app.apache.node import KafkaNodeProcess
from kafka_app.broker.settings import BrokerSettings


class _Running:
    running = True


def _node(tmp_path: Path) -> KafkaNodeProcess:
    spec = KafkaNode(node_id=2, port=1, controller_port=2, log_dir=tmp_path / "node-2")
    return KafkaNodeProcess(
        BrokerSettings(port=0),
        spec,
        [spec],
        java=Path("java"),
        classpath="old.jar",
        log_file=tmp_path / "kafka-server-2.log",
        config_dir=tmp_path,
        version="4.1.2",
    )


def test_a_stopped_node_takes_another_versions_jars(tmp_path: Path) -> None:
    node = _node(tmp_path)
    node.use("4.4.0", "new.jar")
    assert (node.version, node.classpath) == ("4.4.0", "new.jar")


def test_a_running_node_keeps_its_jars(tmp_path: Path) -> None:
    node = _node(tmp_path)
    node.jvm = _Running()  # type: ignore[assignment]
    with pytest.raises(RuntimeError, match="stop it before"):
        node.use("4.4.0", "new.jar")
    assert node.version == "4.1.2"


def test_the_logged_version_is_the_last_start_s(tmp_path: Path) -> None:
    node = _node(tmp_path)
    assert node.logged_version() is None
    node.log_file.write_text(
        "INFO Kafka version: 4.1.2 (org.apache.kafka.common.utils.AppInfoParser)\n"
        "INFO Kafka version: 4.4.0 (org.apache.kafka.common.utils.AppInfoParser)\n"
    )
    assert node.logged_version() == "4.4.0"


def test_a_bad_version_is_refused_before_the_node_stops(tmp_path: Path) -> None:
    cluster = ApacheKafka(BrokerSettings(port=0), brokers=3, progress=False)
    node = _node(tmp_path)
    node.jvm = _Running()  # type: ignore[assignment]
    cluster.nodes = {2: node}
    with pytest.raises(ApacheKafkaError, match="not a Kafka 4.x version"):
        cluster.restart_node(2, "3.9.1")
    assert node.running and cluster.versions == {2: "4.1.2"}
