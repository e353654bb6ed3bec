"""The demo's plumbing: settings to the apps' command lines (launch/commands.py), output
tailing, and the retention switch against the real embedded broker."""

from __future__ import annotations

from pathlib import Path

import pytest
from kafka import KafkaAdminClient
from kafka.admin import ConfigResource, ConfigResourceType, NewTopic

from launch.commands import producer_command, spark_command
from scenarios.demo.errors import RetentionChangeError
from scenarios.demo.retention import next_retention, set_topic_retention
from scenarios.demo.session import OutputTail
from scenarios.demo.settings import DemoSettings, main_parser, settings_from_args


def _producer(settings: DemoSettings) -> list[str]:
    """The producer's command line as the demo session starts it."""
    return producer_command(
        settings.producer_settings(), settings.kafka_choice(), python=settings.python
    )


def _spark(settings: DemoSettings, store_url: str | None = None) -> list[str]:
    """The Spark app's command line as the demo session starts it."""
    return spark_command(settings.spark_settings(store_url), python=settings.python)


def test_defaults_follow_the_apps_and_the_seed() -> None:
    settings = settings_from_args(main_parser().parse_args([]))
    assert settings.log_dir == Path("log") and settings.checkpoint_dir == Path("checkpoints")
    assert settings.kafka == "127.0.0.1:9092"
    assert settings.starts_fresh  # the embedded broker starts empty
    # An hour at start, so a room's discussion while the app is down cannot age its offsets
    # out (seed 001's first experiment); `t` switches to the seed's 15 s for the race.
    assert settings.retention_sec == 3600
    assert settings.producer_settings().retention_sec == 3600
    assert settings.retention_choices == (3600, 15)
    assert settings.output_log == Path("log/streaming-output.log")


def test_the_seeds_15_s_can_still_be_the_start() -> None:
    settings = settings_from_args(main_parser().parse_args(["--retention-sec", "15"]))
    assert settings.producer_settings().retention_sec == 15
    assert settings.retention_choices == (15, 3600)


def test_run_dir_keeps_everything_together_and_is_kept_by_default(tmp_path: Path) -> None:
    settings = settings_from_args(
        main_parser().parse_args(["--run-dir", str(tmp_path), "--port", "19999"])
    )
    assert settings.log_dir == tmp_path / "log"
    assert settings.checkpoint_dir == tmp_path / "checkpoints"
    assert settings.data_dir == tmp_path / "kafka-data"
    assert not settings.starts_fresh
    producer = _producer(settings)
    assert producer[1:3] == ["-m", "kafka_app"]
    assert producer[producer.index("--port") + 1] == "19999"
    assert producer[producer.index("--data-dir") + 1] == str(tmp_path / "kafka-data")
    assert producer[producer.index("--kafka") + 1] == "apache"  # the stack's Kafka, started by it
    spark = _spark(settings)
    assert spark[spark.index("--bootstrap-servers") + 1] == "127.0.0.1:19999"
    assert spark[spark.index("--checkpoint-dir") + 1] == str(tmp_path / "checkpoints")


def test_a_store_gives_the_spark_app_its_url_once_it_answers() -> None:
    settings = settings_from_args(main_parser().parse_args(["--checkpoint-store", "s3"]))
    assert settings.checkpoint_store == "s3"
    spark = _spark(settings, "http://127.0.0.1:40123")
    assert spark[spark.index("--checkpoint-store") + 1] == "s3"
    assert spark[spark.index("--checkpoint-store-url") + 1] == "http://127.0.0.1:40123"
    assert "--checkpoint-store" not in _spark(DemoSettings())  # local: as before


def test_an_unknown_store_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main_parser().parse_args(["--checkpoint-store", "gcs"])
    err = capsys.readouterr().err
    assert "--checkpoint-store: invalid choice: 'gcs'" in err and "s3" in err


def test_an_existing_kafka_replaces_the_embedded_broker() -> None:
    settings = DemoSettings(bootstrap_servers="kafka:9092", retention_sec=3600)
    producer = _producer(settings)
    assert "--port" not in producer and "--data-dir" not in producer and "--kafka" not in producer
    assert producer[producer.index("--bootstrap-servers") + 1] == "kafka:9092"
    assert settings.kafka == "kafka:9092" and not settings.starts_fresh
    assert settings.retention_choices == (3600, 15)


def test_retention_cycles() -> None:
    assert next_retention(15) == 3600
    assert next_retention(3600) == 15
    assert next_retention(60, (60, 15, 3600)) == 15
    assert next_retention(42) == 15


def test_output_tail_gives_complete_lines_only(tmp_path: Path) -> None:
    path = tmp_path / "out"
    tail = OutputTail(path)
    assert tail.new_lines() == []
    path.write_bytes(b"first\nsec")
    assert tail.new_lines() == ["first"]
    with path.open("ab") as handle:
        handle.write(b"ond\r\nthird\n")
    assert tail.new_lines() == ["second", "third"]
    assert tail.new_lines() == []


def _retention_ms(admin: KafkaAdminClient, topic: str) -> str:
    configs = admin.describe_configs(
        [ConfigResource(ConfigResourceType.TOPIC, topic)], config_filter="all"
    )
    return configs["topic"][topic]["retention.ms"]["value"]


def test_retention_is_changed_on_the_broker(embedded_broker: object) -> None:
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic("Experience", 1, 1, topic_configs={"retention.ms": "15000"})])
        set_topic_retention(bootstrap, "Experience", 3600)
        assert _retention_ms(admin, "Experience") == "3600000"
        set_topic_retention(bootstrap, "Experience", 15)
        assert _retention_ms(admin, "Experience") == "15000"
    finally:
        admin.close()


def test_retention_of_a_missing_topic_says_why(embedded_broker: object) -> None:
    bootstrap = embedded_broker.bootstrap_servers  # type: ignore[attr-defined]
    with pytest.raises(RetentionChangeError, match="NoSuchTopic|UnknownTopic|refused"):
        set_topic_retention(bootstrap, "NoSuchTopic", 15)


def test_a_store_that_has_not_answered_shows_none_and_deletes_nothing(tmp_path: Path) -> None:
    from launch.group import ProcessGroup
    from scenarios.demo.readings import read_checkpoint_view
    from scenarios.demo.store import DemoStore

    store = DemoStore("s3", ProcessGroup(tmp_path / "log"), tmp_path / "data", tmp_path / "log")
    folder = Path("checkpoints")
    assert not store.ready()
    assert store.delete(folder) == "the s3 store does not answer yet"
    view = read_checkpoint_view(store.logs_view(folder), shown_as=store.shown(folder))
    assert view.summary == (
        "none at the s3 store (not answering yet): the next start is a new query, state empty"
    )
