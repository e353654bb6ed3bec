"""The apps' command lines from their settings objects: the app's own parser reads each back into
the same settings, and the Kafka of a choice rides along where one is given."""

from __future__ import annotations

import sys
from pathlib import Path

from kafka_app import cli as producer_cli
from kafka_app.apache import cli as broker_cli
from kafka_app.broker.cli import settings_from_args as broker_settings_from_args
from kafka_app.broker.settings import BrokerSettings
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.settings import ProducerAppSettings
from launch.commands import broker_command, class_archive_command, producer_command, spark_command
from spark_app.cli import main_parser as spark_parser
from spark_app.cli import settings_from_args as spark_settings_from_args
from spark_app.settings import SparkAppSettings


def test_the_producer_starts_the_kafka_of_its_choice() -> None:
    settings = ProducerAppSettings(port=19093, topic="Other", data_dir=Path("/tmp/data"))
    argv = producer_command(settings, KafkaChoice(kafka="apache"), python="/opt/python")
    assert argv[:3] == ["/opt/python", "-m", "kafka_app"]
    args = producer_cli.main_parser().parse_args(argv[3:])
    assert KafkaChoice.from_args(args) == KafkaChoice(kafka="apache")
    given = {k: v for k, v in vars(args).items() if v is not None and hasattr(settings, k)}
    assert ProducerAppSettings(**given) == settings


def test_without_a_choice_the_producer_names_no_kafka_of_its_own() -> None:
    argv = producer_command(ProducerAppSettings(bootstrap_servers="kafka:9092"))
    assert argv[0] == sys.executable and "--kafka" not in argv
    assert argv[argv.index("--bootstrap-servers") + 1] == "kafka:9092"


def test_the_broker_command_reads_back_as_its_settings_and_kind() -> None:
    settings = BrokerSettings(port=19094, data_dir=Path("/tmp/data"), retention_check_sec=1.0)
    choice = KafkaChoice(kafka="apache", kafka_version="4.1.2")
    argv = broker_command(settings, choice)
    assert argv[:4] == [sys.executable, "-m", "kafka_app", "broker"]
    args = broker_cli.main_parser().parse_args(argv[4:])
    assert broker_settings_from_args(args) == settings
    assert KafkaChoice.from_args(args) == choice


def test_the_spark_app_runs_on_the_interpreter_it_is_given() -> None:
    settings = SparkAppSettings(bootstrap_servers="127.0.0.1:19092", trigger_sec=2.0)
    argv = spark_command(settings, python="/envs/pyspark-4.0/bin/python")
    assert argv[:3] == ["/envs/pyspark-4.0/bin/python", "-m", "spark_app"]
    assert spark_settings_from_args(spark_parser().parse_args(argv[3:])) == settings


def test_the_class_archive_is_the_spark_apps_own_command() -> None:
    assert class_archive_command("/opt/python") == [
        "/opt/python",
        "-m",
        "spark_app",
        "class-archive",
    ]
