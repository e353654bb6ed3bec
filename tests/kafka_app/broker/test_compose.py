"""docker-compose.yml: real Apache Kafka that the apps can use instead of the embedded broker.

The fast tests read the file (PyYAML when installed, else a reader for the plain block style
the file keeps to) and check what the README promises. The docker test starts the same image
with the same settings through testcontainers and runs the producer app against it; it skips
with a reason when no Docker engine answers.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

_REPO = Path(__file__).resolve().parents[3]
COMPOSE = _REPO / "docker-compose.yml"


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def read_block_yaml(text: str) -> Any:
    """Read YAML written in block style only (mappings, `- ` lists, scalars): what the file uses."""
    rows = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped and not stripped.startswith("#"):
            rows.append((len(raw) - len(raw.lstrip(" ")), stripped))

    def block(i: int, indent: int) -> tuple[Any, int]:
        if rows[i][1].startswith("- "):
            items = []
            while i < len(rows) and rows[i][0] == indent and rows[i][1].startswith("- "):
                items.append(_scalar(rows[i][1][2:]))
                i += 1
            return items, i
        mapping: dict[str, Any] = {}
        while i < len(rows) and rows[i][0] == indent:
            key, _, value = rows[i][1].partition(":")
            i += 1
            if value.strip():
                mapping[key] = _scalar(value)
            elif i < len(rows) and rows[i][0] > indent:
                mapping[key], i = block(i, rows[i][0])
            else:
                mapping[key] = None
        return mapping, i

    return block(0, rows[0][0])[0]


def load_compose() -> dict[str, Any]:
    text = COMPOSE.read_text()
    try:
        import yaml
    except ImportError:
        return read_block_yaml(text)
    return yaml.safe_load(text)


def test_block_reader_reads_nested_maps_and_lists() -> None:
    text = "a:\n  b: \"1\"\n  c:\n    - x\n    - 'y z'\n# note\nd: e\n"
    assert read_block_yaml(text) == {"a": {"b": "1", "c": ["x", "y z"]}, "d": "e"}


def test_compose_runs_one_kraft_node_of_the_official_image_on_loopback() -> None:
    kafka = load_compose()["services"]["kafka"]
    assert kafka["image"].startswith("apache/kafka:")
    assert kafka["ports"] == ["127.0.0.1:9092:9092"]
    env = {k: str(v) for k, v in kafka["environment"].items()}
    assert env["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert env["KAFKA_CONTROLLER_QUORUM_VOTERS"] == f"{env['KAFKA_NODE_ID']}@localhost:9093"
    assert env["KAFKA_ADVERTISED_LISTENERS"] == "PLAINTEXT://127.0.0.1:9092"
    assert "CONTROLLER" in env["KAFKA_LISTENER_SECURITY_PROTOCOL_MAP"]


def test_compose_checks_retention_like_the_seed_and_fits_one_node() -> None:
    env = {k: str(v) for k, v in load_compose()["services"]["kafka"]["environment"].items()}
    assert env["KAFKA_LOG_RETENTION_CHECK_INTERVAL_MS"] == "15000"
    factors = {k: v for k, v in env.items() if k.endswith(("REPLICATION_FACTOR", "MIN_ISR"))}
    assert factors and set(factors.values()) == {"1"}


@pytest.mark.docker
def test_producer_app_runs_on_real_kafka(docker_engine: None, free_port: int, tmp_path: Path) -> None:
    from testcontainers.core.container import DockerContainer

    kafka = load_compose()["services"]["kafka"]
    container = DockerContainer(kafka["image"]).with_bind_ports(9092, free_port)
    for key, value in kafka["environment"].items():
        container.with_env(key, str(value))
    # The container's port is published on a free port here, so clients must be told that one.
    container.with_env("KAFKA_ADVERTISED_LISTENERS", f"PLAINTEXT://127.0.0.1:{free_port}")
    with container:
        _wait_for_kafka(f"127.0.0.1:{free_port}", timeout=120)
        command = [sys.executable, "-m", "kafka_app", "--bootstrap-servers", f"127.0.0.1:{free_port}",
                   "--interval-sec", "0.2", "--log-dir", str(tmp_path)]
        first = subprocess.run([*command, "--count", "3"], cwd=_REPO, capture_output=True, text=True,
                               timeout=120, stdin=subprocess.DEVNULL)
        assert first.returncode == 0, first.stderr
        assert first.stdout.splitlines()[-3:] == [f"Experience [0:{n}]: {n} -> {n}" for n in (1, 2, 3)]
        # A re-run finds the topic, re-applies the settings and continues the counter.
        second = subprocess.run([*command, "--count", "1", "--retention-sec", "3600"], cwd=_REPO,
                                capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert second.returncode == 0, second.stderr
        assert second.stdout.splitlines()[-1] == "Experience [0:4]: 4 -> 4"


def _wait_for_kafka(bootstrap: str, timeout: float) -> None:
    from kafka.admin import KafkaAdminClient
    from kafka.errors import KafkaError

    host, port = bootstrap.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                pass
            with KafkaAdminClient(bootstrap_servers=bootstrap, bootstrap_timeout_ms=5000):
                return
        except (OSError, KafkaError):
            time.sleep(1)  # polling until the deadline: Kafka takes a while to start in a container
    raise AssertionError(f"Kafka in the container did not answer at {bootstrap} within {timeout} s")
