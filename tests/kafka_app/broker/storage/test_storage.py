"""Storage: topics on disk, name validation, persistence, and surviving a kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kafka_app.broker.errors import (
    InvalidConfig,
    InvalidPartitions,
    InvalidTopic,
    TopicAlreadyExists,
    UnknownTopicOrPartition,
)
from kafka_app.broker.storage.data_dir import TOPICS_FILE, Storage, validate_topic_name
from tests.kafka_app.broker.storage_helpers import batch_of, decode

REPO = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize("name", ["events", "a", "A.b_c-1", "x" * 249, "..."])
def test_legal_topic_names(name: str) -> None:
    validate_topic_name(name)


@pytest.mark.parametrize(
    "name", ["", ".", "..", "x" * 250, "a/b", "../etc", "a b", "tópico", "a\\b"]
)
def test_illegal_topic_names_raise_invalid_topic(name: str) -> None:
    with pytest.raises(InvalidTopic) as raised:
        validate_topic_name(name)
    assert raised.value.error_code == 17


def test_create_topic_makes_one_folder_per_partition_and_records_it(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        config = storage.create_topic("events", 3, {"retention.ms": "60000"})
        assert config.retention_ms == 60_000
        assert storage.topics() == {"events": 3}
        assert storage.partition("events", 2).high_watermark == 0
    assert sorted(p.name for p in tmp_path.glob("events-*")) == ["events-0", "events-1", "events-2"]
    assert (tmp_path / "events-0" / "00000000000000000000.log").exists()
    document = json.loads((tmp_path / TOPICS_FILE).read_text())
    assert document["topics"]["events"] == {"partitions": 3, "configs": {"retention.ms": "60000"}}


def test_create_topic_errors(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        with pytest.raises(TopicAlreadyExists):
            storage.create_topic("events", 1, {})
        with pytest.raises(InvalidPartitions):
            storage.create_topic("other", 0, {})
        with pytest.raises(InvalidConfig, match="segment.bytes"):
            storage.create_topic("other", 1, {"segment.bytes": "-5"})
        with pytest.raises(InvalidTopic):
            storage.create_topic("../escape", 1, {})
        assert storage.topics() == {"events": 1}
    assert not (tmp_path.parent / "escape-0").exists()


def test_unknown_topic_or_partition(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 2, {})
        with pytest.raises(UnknownTopicOrPartition):
            storage.partition("nope", 0)
        with pytest.raises(UnknownTopicOrPartition):
            storage.partition("events", 2)
        with pytest.raises(UnknownTopicOrPartition):
            storage.topic_config("nope")


def test_topics_configs_and_data_survive_reopen(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 2, {"segment.bytes": "1000"})
        storage.partition("events", 1).append(batch_of(3))
        storage.alter_topic_config("events", {"retention.ms": "5000"}, ["segment.bytes"])
    with Storage(tmp_path) as storage:
        assert storage.topics() == {"events": 2}
        config = storage.topic_config("events")
        assert (config.retention_ms, config.segment_bytes) == (5000, 1024**3)
        assert storage.partition("events", 1).config == config
        assert [o for o, _, _ in decode(storage.partition("events", 1).read(0, 1 << 20))] == [
            0,
            1,
            2,
        ]


def test_alter_topic_config_validates_before_changing_anything(tmp_path: Path) -> None:
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {"retention.ms": "100"})
        with pytest.raises(InvalidConfig):
            storage.alter_topic_config("events", {"retention.ms": "1", "bogus": "2"}, [])
        assert storage.topic_config("events").retention_ms == 100


def test_a_leftover_folder_does_not_leak_into_a_new_topic(tmp_path: Path) -> None:
    stale = tmp_path / "events-0"
    stale.mkdir(parents=True)
    (stale / "00000000000000000000.log").write_bytes(batch_of(2))
    # topics.json exists and does not list it: a crash between making the folder and recording it.
    (tmp_path / "topics.json").write_text('{"version": 1, "topics": {}}')
    with Storage(tmp_path) as storage:
        storage.create_topic("events", 1, {})
        assert storage.partition("events", 0).high_watermark == 0


def test_close_is_idempotent(tmp_path: Path) -> None:
    storage = Storage(tmp_path)
    storage.create_topic("events", 1, {})
    storage.close()
    storage.close()


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from kafka_app.broker.storage.data_dir import Storage
    from tests.kafka_app.broker.storage_helpers import batch_of
    storage = Storage(Path(sys.argv[1]))
    storage.create_topic("events", 1, {"segment.bytes": "4000"})
    log = storage.partition("events", 0)
    while True:
        offset = log.append(batch_of(5))
        print(offset + 4, flush=True)  # the acknowledgement: last offset now stored
""")


def test_every_acknowledged_record_survives_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(data_dir)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    acknowledged = -1
    deadline = time.monotonic() + 30
    try:
        while acknowledged < 2_000 and time.monotonic() < deadline:
            line = writer.stdout.readline()
            if not line:
                break
            acknowledged = int(line)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=10)
        writer.stdout.close()
    assert acknowledged >= 2_000, "the writer did not get going"
    with Storage(data_dir) as storage:
        log = storage.partition("events", 0)
        assert log.high_watermark > acknowledged
        assert len(log.segments) > 1
        offsets = []
        position = 0
        while position < log.high_watermark:
            records = decode(log.read(position, 1 << 20))
            offsets.extend(offset for offset, _, _ in records)
            position = records[-1][0] + 1
        assert offsets == list(range(log.high_watermark))
