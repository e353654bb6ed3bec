"""The Spark app's settings render themselves as its command line, and the CLI reads back the
same settings: scenarios, the demo, tests and benchmarks build settings, never flags."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.cli import main_parser, settings_from_args
from spark_app.settings import SparkAppSettings

# A value other than the default for every field.
CHANGED = {
    "bootstrap_servers": "127.0.0.1:19092,localhost:19093",
    "topic": "Other,Another",
    "subscribe_pattern": "Exp.*",
    "source": "spark-kafka",
    "source_options": ("fetchOffset.numRetries=5", "kafka.default.api.timeout.ms=2000"),
    "checkpoint": CheckpointPlace("s3", Path("/tmp/cp"), "http://127.0.0.1:9123/mine"),
    "log_dir": Path("/tmp/log"),
    "trigger_sec": 0.5,
    "starting_offsets": '{"Other":{"0":42}}',
    "fail_on_data_loss": False,
    "max_offsets_per_trigger": 100,
    "trigger": "available-now",
    "real_time_sec": 7.0,
    "output_topic": "Out",
    "connect": True,
    "min_offsets_per_trigger": 10,
    "max_trigger_delay": "30s",
    "sink": "at-least-once",
    "on_negative_key": "ignore",
    "master": "local-cluster[2,1,1024]",
    "shuffle_partitions": 3,
    "ui": True,
    "ui_port": 4141,
    "offsets_from_group": "grp",
    "output_format": "v2",
    "state_schema": "v2",
    "class_cache_dir": None,
    "checkpoint_latency": "lognormal:mean=2.6s,min=1s,max=20s",
    "event_log_dir": Path("events"),
    "gc_log": Path("log/gc.log"),
    "supervise": True,
    "give_up_after": 5,
    "max_backoff_sec": 2.5,
    "state_store": "rocksdb",
    "changelog_checkpointing": True,
    "checkpoint_format": 2,
    "counter": "transform-with-state",
    "query": Path("queries/dedup.py"),
    "snapshot_every": 3,
    "maintenance_sec": 1.5,
    "initial_state_from": Path("/tmp/old-cp"),
    "min_batches_to_retain": 20,
    "extra_space_ratio": 0.0,
    "state_ttl_sec": 12.0,
    "idle_timer_sec": 6.5,
    "state_encoding": "avro",
}

# Each part of the checkpoint's place changed alone, and with it the part it needs (a URL is
# a store's): every one travels as its own option.
PLACES = {
    "folder": CheckpointPlace(folder=Path("/tmp/cp")),
    "kind": CheckpointPlace("hdfs"),
    "url": CheckpointPlace("s3", url="http://127.0.0.1:9123/mine"),
    "uri-made": CheckpointPlace.from_options("s3a://mine/team/cp", url="http://minio:9000"),
}


def round_trip(settings: SparkAppSettings) -> SparkAppSettings:
    return settings_from_args(main_parser().parse_args(settings.to_argv()))


def test_every_field_has_a_changed_value_here() -> None:
    assert {f.name for f in fields(SparkAppSettings)} == set(CHANGED)


def test_defaults_render_as_only_the_source_and_read_back() -> None:
    # The source always: a child must not depend on a default that changed once already.
    assert SparkAppSettings().to_argv() == ["--source", "spark-kafka"]
    assert round_trip(SparkAppSettings()) == SparkAppSettings()


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_each_field_survives_the_command_line(name: str) -> None:
    settings = replace(SparkAppSettings(), **{name: CHANGED[name]})
    assert round_trip(settings) == settings


@pytest.mark.parametrize("part", sorted(PLACES))
def test_each_part_of_the_checkpoints_place_survives_the_command_line(part: str) -> None:
    settings = SparkAppSettings(checkpoint=PLACES[part])
    assert round_trip(settings) == settings


def test_the_place_renders_as_the_three_options_it_always_had() -> None:
    argv = SparkAppSettings(checkpoint=CHANGED["checkpoint"]).to_argv()
    assert argv[argv.index("--checkpoint-dir") :][:6] == [
        "--checkpoint-dir",
        "/tmp/cp",
        "--checkpoint-store",
        "s3",
        "--checkpoint-store-url",
        "http://127.0.0.1:9123/mine",
    ]
    assert "--checkpoint-store-url" not in SparkAppSettings(checkpoint=PLACES["kind"]).to_argv()


def test_all_fields_at_once() -> None:
    settings = SparkAppSettings(**CHANGED)
    assert round_trip(settings) == settings
    assert "--no-class-cache" in settings.to_argv() and "--ui" in settings.to_argv()
    assert "--changelog-checkpointing" in settings.to_argv()
