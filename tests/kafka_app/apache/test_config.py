"""Our broker settings as Apache Kafka's server.properties, and the choice of Kafka on both CLIs
(fast: no JVM starts)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from kafka_app.apache import cli as apache_cli
from kafka_app.apache.config import KafkaNode, render, server_properties
from kafka_app.apache.storage import new_cluster_id
from kafka_app.broker.settings import BrokerSettings
from kafka_app.cli import run_cli
from kafka_app.kafka_choice import KafkaChoice

NODE = KafkaNode(node_id=1, port=19092, controller_port=19093, log_dir=Path("/data/kafka"))


def props(
    settings: BrokerSettings, node: KafkaNode = NODE, voters: list[KafkaNode] | None = None
) -> dict[str, str]:
    return server_properties(settings, node, voters or [node])


def test_one_node_listens_where_the_embedded_broker_would() -> None:
    p = props(BrokerSettings(port=19092, data_dir=Path("/data/kafka")))
    assert p["listeners"] == "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093"
    assert p["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092"
    assert p["controller.quorum.voters"] == "1@127.0.0.1:19093"
    assert p["process.roles"] == "broker,controller" and p["log.dirs"] == "/data/kafka"
    for key in (
        "offsets.topic.replication.factor",
        "transaction.state.log.replication.factor",
        "default.replication.factor",
        "transaction.state.log.min.isr",
        "min.insync.replicas",
    ):
        assert p[key] == "1", key


def test_retention_and_group_settings_are_kafkas_own() -> None:
    p = props(
        BrokerSettings(
            retention_check_sec=1.5,
            retention_initial_delay_sec=0,
            group_initial_rebalance_delay_ms=0,
        )
    )
    assert p["log.retention.check.interval.ms"] == "1500"
    assert p["log.initial.task.delay.ms"] == "0"
    assert p["group.initial.rebalance.delay.ms"] == "0"
    defaults = props(BrokerSettings())
    assert defaults["log.retention.check.interval.ms"] == "15000"
    assert defaults["log.initial.task.delay.ms"] == "30000"
    assert defaults["group.initial.rebalance.delay.ms"] == "3000"
    # Kafka creates unknown topics by default; the embedded broker does not, and neither do we.
    assert defaults["auto.create.topics.enable"] == "false"


def test_second_listener_advertises_the_proxy() -> None:
    p = props(BrokerSettings(second_listener="19099=127.0.0.1:19100"))
    assert p["listeners"].endswith(",SECOND://127.0.0.1:19099")
    assert p["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092,SECOND://127.0.0.1:19100"
    assert "SECOND:PLAINTEXT" in p["listener.security.protocol.map"].split(",")
    assert p["inter.broker.listener.name"] == "PLAINTEXT"


def test_wildcard_bind_advertises_loopback() -> None:
    p = props(BrokerSettings(host="0.0.0.0"))
    assert p["listeners"].startswith("PLAINTEXT://0.0.0.0:19092")
    assert p["advertised.listeners"] == "PLAINTEXT://127.0.0.1:19092"


def test_three_nodes_keep_three_replicas_and_two_in_sync() -> None:
    nodes = [KafkaNode(i, 19090 + 2 * i, 19091 + 2 * i, Path(f"/d/node-{i}")) for i in (1, 2, 3)]
    p = props(BrokerSettings(), nodes[1], nodes)
    assert p["controller.quorum.voters"] == "1@127.0.0.1:19093,2@127.0.0.1:19095,3@127.0.0.1:19097"
    assert p["node.id"] == "2" and p["log.dirs"] == "/d/node-2"
    assert p["default.replication.factor"] == "3" and p["min.insync.replicas"] == "2"
    assert p["offsets.topic.replication.factor"] == "3"


def test_render_escapes_backslashes() -> None:
    assert render({"log.dirs": "C:\\kafka"}) == "log.dirs=C:\\\\kafka\n"


def test_cluster_ids_look_like_kafkas() -> None:
    ids = {new_cluster_id() for _ in range(200)}
    assert len(ids) == 200 and all(len(i) == 22 and not i.startswith("-") for i in ids)


@pytest.mark.parametrize(
    "choice",
    [
        KafkaChoice(),
        KafkaChoice(kafka="apache"),
        KafkaChoice(kafka="apache", kafka_version="4.0.2", brokers=3),
    ],
)
def test_choice_round_trips_through_the_command_line(choice: KafkaChoice) -> None:
    parser = argparse.ArgumentParser()
    KafkaChoice.add_arguments(parser)
    assert KafkaChoice.from_args(parser.parse_args(choice.to_argv())) == choice


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--offline", "--kafka-version", "4.1.2"], "drop --offline"),
        (["--offline", "--kafka", "apache"], "disagree: give one"),
        (["--kafka", "apache", "--kafka-version", "latest"], "is not a Kafka 4.x version"),
        (["--kafka", "apache", "--brokers", "2"], "--brokers must be 1 or 3"),
        (
            ["--kafka", "apache", "--brokers", "3", "--second-listener", "19099=127.0.0.1:19100"],
            "--second-listener works with one broker",
        ),
    ],
)
def test_bad_choices_are_one_line_and_exit_2(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(["broker", *argv]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0]
    if "--second-listener" not in argv:  # the producer app has no second listener
        assert run_cli(argv) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0]


def test_broker_help_names_the_choice(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        apache_cli.main(["--help"])
    out = capsys.readouterr().out
    assert (
        "--kafka {embedded,apache}" in out
        and "--offline" in out
        and "--kafka-version" in out
        and "--retention-check-sec" in out
    )


def test_embedded_choice_hands_the_rest_to_the_embedded_broker() -> None:
    argv = ["--kafka", "embedded", "--port", "19092", "--data-dir", "d", "--auto-create-topics"]
    assert apache_cli._strip_choice(argv) == [
        "--port",
        "19092",
        "--data-dir",
        "d",
        "--auto-create-topics",
    ]
