"""docker-compose.yml: real Apache Kafka that the apps can use instead of the embedded broker.

The fast tests read the file (PyYAML when installed, else a reader for the plain block style
the file keeps to), with `${NAME:-default}` read as its default (what a user without those
variables gets), and check what the README promises. The docker test brings the file up with
docker-compose on our Kafka image (KAFKA_IMAGE; no registry here), runs the producer app
against it and takes it down with `down -v`; it skips with a reason when no Docker engine
answers or no docker-compose is installed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
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


_DEFAULT = re.compile(r"\$\{[A-Z_]+:-([^}]*)\}")


def with_defaults(value: Any) -> Any:
    """`${NAME:-default}` read as its default everywhere in a loaded file."""
    if isinstance(value, dict):
        return {key: with_defaults(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_defaults(item) for item in value]
    return _DEFAULT.sub(r"\1", value) if isinstance(value, str) else value


def load_compose() -> dict[str, Any]:
    text = COMPOSE.read_text()
    try:
        import yaml
    except ImportError:
        return with_defaults(read_block_yaml(text))
    return with_defaults(yaml.safe_load(text))


def test_block_reader_reads_nested_maps_and_lists() -> None:
    text = "a:\n  b: \"1\"\n  c:\n    - x\n    - 'y z'\n# note\nd: e\n"
    assert read_block_yaml(text) == {"a": {"b": "1", "c": ["x", "y z"]}, "d": "e"}


def test_a_user_without_variables_gets_the_defaults() -> None:
    assert with_defaults(
        {"p": ["127.0.0.1:${KAFKA_PORT:-9092}:9092"], "i": "${KAFKA_IMAGE:-a/b:1}"}
    ) == {"p": ["127.0.0.1:9092:9092"], "i": "a/b:1"}


def test_the_official_image_is_the_version_of_our_image() -> None:
    from kafka_app.apache.jars import DEFAULT_VERSION

    assert load_compose()["services"]["kafka"]["image"] == f"apache/kafka:{DEFAULT_VERSION}"


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


def _compose_command() -> list[str]:
    """docker-compose (1.29 is Debian's) or the `docker compose` plugin; skips when neither."""
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    plugin = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if plugin.returncode == 0:
        return ["docker", "compose"]
    pytest.skip(
        "neither docker-compose nor `docker compose` is installed "
        "(`apt-get install -y docker-compose`; .ci/run installs it)"
    )


def _ours(client: Any, project: str) -> dict[str, list[str]]:
    """Containers, networks and volumes of a compose project that are still there."""
    label = {"label": f"com.docker.compose.project={project}"}
    return {
        "containers": [c.name for c in client.containers.list(all=True, filters=label)],
        "networks": [n.name for n in client.networks.list(filters=label)],
        "volumes": [v.name for v in client.volumes.list(filters=label)],
    }


@pytest.mark.docker
def test_compose_file_runs_kafka_for_the_producer_app(
    kafka_image: str, free_port: int, tmp_path: Path
) -> None:
    from confluent_kafka.admin import AdminClient, ConfigResource

    from kafka_app.container.image import docker_client

    client = docker_client()
    # The pid: .ci/with-docker removes a project whose test process was killed outright.
    project = f"checkpoint-experience-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    compose = [*_compose_command(), "--project-name", project, "--file", str(COMPOSE)]
    env = {**os.environ, "KAFKA_IMAGE": kafka_image, "KAFKA_PORT": str(free_port)}
    bootstrap = f"127.0.0.1:{free_port}"
    try:
        up = subprocess.run(
            [*compose, "up", "-d"], env=env, capture_output=True, text=True, timeout=120
        )
        assert up.returncode == 0, up.stderr
        (container,) = client.containers.list(
            filters={"label": f"com.docker.compose.project={project}"}
        )
        # docker-compose's own healthcheck (Kafka answers ApiVersions) says when Kafka is ready.
        health = _wait_healthy(container, timeout=120)
        assert health == "healthy", container.logs(tail=20).decode(errors="replace")
        ports = container.attrs["NetworkSettings"]["Ports"]["9092/tcp"]
        assert ports == [{"HostIp": "127.0.0.1", "HostPort": str(free_port)}]

        # Kafka's own view of its settings (librdkafka's admin client; kafka-python's describes
        # no broker configs).
        librdkafka = AdminClient({"bootstrap.servers": bootstrap})
        (future,) = librdkafka.describe_configs([ConfigResource("broker", "1")]).values()
        broker = future.result(30)
        assert broker["log.retention.check.interval.ms"].value == "15000"
        assert broker["auto.create.topics.enable"].value == "false"

        command = [
            sys.executable,
            "-m",
            "kafka_app",
            "--bootstrap-servers",
            bootstrap,
            "--interval-sec",
            "0.2",
            "--log-dir",
            str(tmp_path),
        ]
        first = subprocess.run(
            [*command, "--count", "3"],
            cwd=_REPO,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert first.returncode == 0, first.stderr
        assert first.stdout.splitlines()[-3:] == [
            f"Experience [0:{n}]: {n} -> {n}" for n in (1, 2, 3)
        ]
        # A re-run finds the topic, re-applies the settings and continues the counter.
        second = subprocess.run(
            [*command, "--count", "1", "--retention-sec", "3600"],
            cwd=_REPO,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert second.returncode == 0, second.stderr
        assert second.stdout.splitlines()[-1] == "Experience [0:4]: 4 -> 4"
    finally:
        down = subprocess.run(
            [*compose, "down", "-v", "--timeout", "10"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert down.returncode == 0, down.stderr
    assert _ours(client, project) == {"containers": [], "networks": [], "volumes": []}


def _wait_healthy(container: Any, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    status = "starting"
    while time.monotonic() < deadline:
        container.reload()
        status = container.attrs["State"].get("Health", {}).get("Status", "none")
        if status != "starting" or container.status == "exited":
            return status
        time.sleep(1)  # polling Docker's health status until the deadline
    return status
