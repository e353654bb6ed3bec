"""Our Kafka image's inputs and the scripts inside it, without Docker (fast).

What a user relies on: the image has kafka_app's settings for Apache Kafka, a change of any
input makes a new tag (and nothing else does), `KAFKA_*` variables override a setting as in
apache/kafka's image, and the healthcheck probe fails when no Kafka answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_app.container import cli
from kafka_app.container.image import _files, container_properties, image_inputs

_HERE = Path(__file__).resolve().parents[3] / "kafka_app" / "container"


def _properties(text: str) -> dict[str, str]:
    # Java's Properties: the last line of a key wins.
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def test_the_image_has_kafka_apps_settings_for_one_node() -> None:
    props = _properties(container_properties())
    assert props["log.retention.check.interval.ms"] == "15000"
    assert props["process.roles"] == "broker,controller"
    assert props["listeners"] == "PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093"
    assert props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:9092"
    assert props["offsets.topic.replication.factor"] == "1"
    assert props["auto.create.topics.enable"] == "false"
    assert props["log.dirs"] == "/var/lib/kafka/data"


def test_the_tag_changes_with_any_input_and_only_then(tmp_path: Path) -> None:
    jar = tmp_path / "kafka-clients-4.1.2.jar"
    jar.write_bytes(b"PK one")
    files = {**_files([]), "libs/kafka-clients-4.1.2.jar": jar}
    first = image_inputs("base:1", files)
    assert image_inputs("base:1", dict(files)) == first
    jar.write_bytes(b"PK two")
    assert image_inputs("base:1", files) != first
    jar.write_bytes(b"PK one")
    assert image_inputs("base:2", files) != first
    assert image_inputs("base:1", {**files, "config/server.properties": b"x=1\n"}) != first


def test_kafka_variables_override_a_setting_as_apache_kafkas_image_reads_them(
    tmp_path: Path,
) -> None:
    defaults = tmp_path / "server.properties"
    defaults.write_text("log.retention.check.interval.ms=15000\nnode.id=1\n")
    env = {
        "PATH": os.environ["PATH"],
        "KAFKA_LOG_RETENTION_CHECK_INTERVAL_MS": "1000",
        "KAFKA_ADVERTISED_LISTENERS": "PLAINTEXT://127.0.0.1:19092",
        "KAFKA_SOME__UNDERSCORE___DASH": "a=b",
        "KAFKA_HEAP_OPTS": "-Xmx1G",
        "OTHER": "x",
    }
    done = subprocess.run(
        [str(_HERE / "kafka-env-properties"), str(defaults)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    props = _properties(done.stdout)
    assert props["log.retention.check.interval.ms"] == "1000"
    assert props["node.id"] == "1"
    assert props["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092"
    assert props["some_underscore-dash"] == "a=b"
    assert not any(key.startswith(("heap", "other")) for key in props)


def test_the_healthcheck_fails_when_nothing_answers(free_port: int) -> None:
    done = subprocess.run(
        [
            str(_HERE / "kafka-broker-api-versions.sh"),
            "--bootstrap-server",
            f"127.0.0.1:{free_port}",
        ],
        capture_output=True,
        timeout=30,
    )
    assert done.returncode != 0


def test_the_healthcheck_passes_on_a_kafka_that_answers(embedded_broker) -> None:
    done = subprocess.run(
        [
            str(_HERE / "kafka-broker-api-versions.sh"),
            "--bootstrap-server",
            embedded_broker.bootstrap_servers,
        ],
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr


def test_a_wrong_version_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--kafka-version", "3.9"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--kafka-version '3.9' is not a Kafka 4.x version" in err


def test_no_docker_engine_is_one_line_saying_what_to_do(tmp_path: Path) -> None:
    env = {**os.environ, "DOCKER_HOST": f"unix://{tmp_path}/no-such.sock"}
    done = subprocess.run(
        [sys.executable, "-m", "kafka_app", "image"],
        cwd=_HERE.parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(
        "error: no Docker engine answers; "
    )
    assert "dockerd" in done.stderr and done.stdout == ""


def test_a_killed_builds_leftovers_go_and_a_running_ones_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kafka_app.container import base

    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path))
    folder = base.image_dir()
    dead = _a_dead_pid()
    (folder / f"debian-bookworm-jre17-x.rootfs-{dead}" / "usr").mkdir(parents=True)
    (folder / f"kafka-context.tar.tmp-{dead}").write_bytes(b"half")
    (folder / f"kafka-context.tar.tmp-{os.getpid()}").write_bytes(b"being written")
    (folder / "debian-bookworm-jre17-x.tar").write_bytes(b"done")
    base.remove_stale()
    assert sorted(p.name for p in folder.iterdir()) == [
        "debian-bookworm-jre17-x.tar",
        f"kafka-context.tar.tmp-{os.getpid()}",
    ]


def _a_dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid
