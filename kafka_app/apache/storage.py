"""KRaft storage of our Kafka nodes: one cluster id per data folder, each node's folder formatted once.

The cluster id is kept in `<data dir>/cluster-id` (written before formatting, atomically), and
Kafka writes it again into each node's `meta.properties`. A node folder formatted with another
id, or a folder holding something that is not Kafka's (e.g. the embedded broker's topics), is
refused in one line before any JVM starts, instead of Kafka failing deep in its startup.

Usage:
    cluster_id, unformatted = check_storage(data_dir, nodes)   # before anything is fetched
    format_nodes(unformatted, cluster_id)
"""

from __future__ import annotations

import base64
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

from kafka_app.apache.config import KafkaNode
from kafka_app.apache.errors import DataDirMismatch

__all__ = ["CLUSTER_ID_FILE", "new_cluster_id", "read_meta", "check_storage"]

CLUSTER_ID_FILE = "cluster-id"
_OURS = {CLUSTER_ID_FILE, f"{CLUSTER_ID_FILE}.tmp"}
_WHAT_TO_DO = "give another --data-dir, or delete the folder to start with an empty Kafka"


def new_cluster_id() -> str:
    """A random id as Kafka's `Uuid.randomUuid` prints it (URL-safe base64, never a leading '-')."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def read_meta(log_dir: Path) -> dict[str, str] | None:
    """The `meta.properties` Kafka's format wrote into a node's folder, or None if unformatted."""
    try:
        lines = (log_dir / "meta.properties").read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    pairs = (line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def _cluster_id(data_dir: Path, nodes: Sequence[KafkaNode]) -> str:
    path = data_dir / CLUSTER_ID_FILE
    if path.is_file():
        return path.read_text(encoding="utf-8").strip()
    for node in nodes:
        if read_meta(node.log_dir) is not None:
            raise DataDirMismatch(
                f"{node.log_dir} was formatted by a Kafka this project did not "
                f"start (no {CLUSTER_ID_FILE} file beside it); {_WHAT_TO_DO}"
            )
    cluster_id = new_cluster_id()
    data_dir.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f"{CLUSTER_ID_FILE}.tmp")
    temporary.write_text(cluster_id + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return cluster_id


def _check_node(node: KafkaNode, cluster_id: str, data_dir: Path) -> bool:
    """True when the node's folder still needs formatting; raises when it belongs elsewhere."""
    meta = read_meta(node.log_dir)
    if meta is None:
        present = set(os.listdir(node.log_dir)) - _OURS if node.log_dir.is_dir() else set()
        if present:
            shown = ", ".join(sorted(present)[:3])
            raise DataDirMismatch(
                f"{node.log_dir} holds {shown}, not Kafka's data (the embedded "
                f"broker's?); {_WHAT_TO_DO}"
            )
        return True
    if meta.get("cluster.id") != cluster_id:
        raise DataDirMismatch(
            f"{node.log_dir} was formatted by another Kafka cluster (cluster.id "
            f"{meta.get('cluster.id')}, {data_dir / CLUSTER_ID_FILE} says "
            f"{cluster_id}); {_WHAT_TO_DO}"
        )
    if meta.get("node.id") != str(node.node_id):
        raise DataDirMismatch(
            f"{node.log_dir} holds Kafka node {meta.get('node.id')}'s data, not "
            f"node {node.node_id}'s; {_WHAT_TO_DO}"
        )
    return False


def check_storage(data_dir: Path, nodes: Sequence[KafkaNode]) -> tuple[str, list[KafkaNode]]:
    """The cluster id (made and kept on first use) and the nodes whose folders need formatting;
    raises DataDirMismatch in one line when a folder belongs to another cluster or to no Kafka."""
    cluster_id = _cluster_id(data_dir, nodes)
    return cluster_id, [node for node in nodes if _check_node(node, cluster_id, data_dir)]
