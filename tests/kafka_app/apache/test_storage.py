"""The data folder's checks before any JVM starts: ours, another cluster's, another node's, or not Kafka's."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_app.apache.config import KafkaNode
from kafka_app.apache.errors import DataDirMismatch
from kafka_app.apache.storage import CLUSTER_ID_FILE, check_storage


def node(n: int, folder: Path) -> KafkaNode:
    return KafkaNode(node_id=n, port=19090 + n, controller_port=19190 + n, log_dir=folder)


def formatted(folder: Path, cluster_id: str, node_id: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "meta.properties").write_text(
        f"version=1\ncluster.id={cluster_id}\nnode.id={node_id}\n"
    )


def test_a_new_folder_gets_a_cluster_id_kept_for_the_next_start(tmp_path: Path) -> None:
    nodes = [node(1, tmp_path)]
    cluster_id, todo = check_storage(tmp_path, nodes)
    assert todo == nodes and (tmp_path / CLUSTER_ID_FILE).read_text().strip() == cluster_id
    formatted(tmp_path, cluster_id, 1)
    assert check_storage(tmp_path, nodes) == (cluster_id, [])


def test_three_nodes_format_only_the_missing_one(tmp_path: Path) -> None:
    nodes = [node(n, tmp_path / f"node-{n}") for n in (1, 2, 3)]
    cluster_id, _ = check_storage(tmp_path, nodes)
    formatted(tmp_path / "node-1", cluster_id, 1)
    formatted(tmp_path / "node-3", cluster_id, 3)
    assert check_storage(tmp_path, nodes) == (cluster_id, [nodes[1]])


def test_another_nodes_folder_is_refused(tmp_path: Path) -> None:
    nodes = [node(n, tmp_path / f"node-{n}") for n in (1, 2)]
    cluster_id, _ = check_storage(tmp_path, nodes)
    formatted(tmp_path / "node-1", cluster_id, 2)
    with pytest.raises(DataDirMismatch, match=r"node-1 holds Kafka node 2's data, not node 1's"):
        check_storage(tmp_path, nodes)


def test_kafka_data_we_did_not_make_is_refused(tmp_path: Path) -> None:
    formatted(tmp_path, "AAAAAAAAAAAAAAAAAAAAAA", 1)
    with pytest.raises(DataDirMismatch, match="formatted by a Kafka this project did not start"):
        check_storage(tmp_path, [node(1, tmp_path)])
    assert not (tmp_path / CLUSTER_ID_FILE).exists()
