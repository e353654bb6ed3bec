"""Each on-disk step of a roll, a topic creation, DeleteRecords and a config change, failing the
way a full disk fails it: the step is undone in memory and on disk, the caller gets
KafkaStorageError (Kafka's KAFKA_STORAGE_ERROR), the data folder goes offline, and after a
restart every acknowledged offset holds exactly its record and no offset is handed out twice.

The failure is injected at one exact step (ENOSPC from the metadata-file writer, or from the
segment write), on real files, so these run everywhere; test_disk_full_broker.py fills a real
tmpfs under a broker process.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_app.broker.errors import KafkaStorageError, StorageCorrupt
from kafka_app.broker.storage import data_dir
from kafka_app.broker.storage import log as log_module
from kafka_app.broker.storage import segment as segment_module
from kafka_app.broker.storage.data_dir import CLEAN_SHUTDOWN_FILE, Storage
from kafka_app.broker.storage.record_batch import iter_batches, set_base_offset
from kafka_app.broker.storage.segment import segment_file_name
from tests.kafka_app.broker.storage_helpers import batch, decode

ROLL_EVERY_BATCH = {"segment.bytes": "14"}  # any second batch rolls


def _full_disk(*_args: object, **_kwargs: object) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


class _Disk:
    """`fill(module, "name")`: from now on that function fails with ENOSPC; `free()` ends it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._monkeypatch = monkeypatch

    def fill(self, module: object, name: str) -> None:
        self._monkeypatch.setattr(module, name, _full_disk)

    def free(self) -> None:
        self._monkeypatch.undo()


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> _Disk:
    return _Disk(monkeypatch)


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with Storage(tmp_path / "data") as opened:
        yield opened


def _values_from(storage: Storage, topic: str, offset: int) -> list[tuple[int, bytes]]:
    """(offset, value) of every record a consumer starting at `offset` would get, in order."""
    log = storage.partition(topic, 0)
    got: list[tuple[int, bytes]] = []
    while offset < log.high_watermark:
        records = [(o, v) for o, _, v in decode(log.read(offset, 1 << 20)) if o >= offset]
        assert records and records[0][0] == offset, f"a fetch at {offset} skipped to {records[:1]}"
        got += records
        offset = records[-1][0] + 1
    return got


def _assert_holds(folder: Path, topic: str, acknowledged: dict[int, bytes]) -> None:
    """Reopen the folder: from 0 and from every offset, each acknowledged offset holds its record."""
    with Storage(folder) as reopened:
        log = reopened.partition(topic, 0)
        assert log.high_watermark == len(acknowledged)
        for start in range(len(acknowledged) + 1):
            assert _values_from(reopened, topic, start) == sorted(
                (o, v) for o, v in acknowledged.items() if o >= start
            )


def _stop_offline(storage: Storage, topic: str) -> None:
    """The folder answers KafkaStorageError now, and its stop does not claim a clean shutdown."""
    with pytest.raises(KafkaStorageError, match="offline"):
        storage.partition(topic, 0)
    storage.close()
    assert not (storage.data_dir / CLEAN_SHUTDOWN_FILE).exists()


def test_a_roll_that_cannot_write_the_recovery_point_leaves_no_segment_and_no_double_offset(
    storage: Storage, disk: _Disk
) -> None:
    storage.create_topic("events", 1, ROLL_EVERY_BATCH)
    log = storage.partition("events", 0)
    acknowledged = {log.append(batch([b"a0"])): b"a0"}
    disk.fill(log_module, "write_atomically")
    with pytest.raises(KafkaStorageError, match="No space left"):
        log.append(batch([b"lost"]))  # needs a roll: the recovery point cannot be written
    assert [s.base_offset for s in log.segments] == [0]
    assert sorted(p.name for p in log.folder.glob("*.log")) == [segment_file_name(0)]
    with pytest.raises(KafkaStorageError, match="offline"):
        log.append(batch([b"small"]))  # would fit the old segment: not acknowledged at 1 either
    _stop_offline(storage, "events")
    disk.free()
    _assert_holds(storage.data_dir, "events", acknowledged)
    with Storage(storage.data_dir) as reopened:  # the next offset goes to a new record, once
        assert reopened.partition("events", 0).append(batch([b"a1"])) == 1
    _assert_holds(storage.data_dir, "events", {**acknowledged, 1: b"a1"})


def test_an_append_that_fails_after_its_roll_is_undone_whole(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage.create_topic("events", 1, ROLL_EVERY_BATCH)
    log = storage.partition("events", 0)
    acknowledged = {log.append(batch([b"a0"])): b"a0"}
    writes = []
    real_append = segment_module.Segment.append

    def second_write_fails(self, *args, **kwargs):  # one produce of two batches: one per segment
        writes.append(self.base_offset)
        if len(writes) == 2:
            _full_disk()
        return real_append(self, *args, **kwargs)

    monkeypatch.setattr(segment_module.Segment, "append", second_write_fails)
    with pytest.raises(KafkaStorageError):
        log.append(batch([b"x1"]) + batch([b"x2"]))
    assert writes == [1, 2]  # x1 went to a rolled segment before x2's segment failed
    monkeypatch.undo()
    assert log.log_end_offset == 1 and [s.base_offset for s in log.segments] == [0]
    assert sorted(p.name for p in log.folder.glob("*.log")) == [segment_file_name(0)]
    storage.close()
    _assert_holds(storage.data_dir, "events", acknowledged)


def test_empty_segments_left_inside_a_log_do_not_hide_records_at_start(tmp_path: Path) -> None:
    """The issue's data folders: empty `…1275.log` after the segment holding 1275, and empty
    files inside the log, from rolls an older broker left half done."""
    folder = tmp_path / "data"
    with Storage(folder) as storage:
        storage.create_topic("events", 1, ROLL_EVERY_BATCH)
        log = storage.partition("events", 0)
        log.append(batch([b"v%d" % i for i in range(5)]))  # 0..4
        log.append(batch([b"v%d" % i for i in range(5, 10)]))  # 5..9 in a second segment
    partition = folder / "events-0"
    for base in (2, 3, 4, 10):
        (partition / segment_file_name(base)).touch()
    _assert_holds(folder, "events", {i: b"v%d" % i for i in range(10)})
    assert sorted(p.name for p in partition.glob("*.log")) == [
        segment_file_name(0),
        segment_file_name(5),
    ]


def test_a_segment_overlapping_the_one_before_stops_the_start(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    with Storage(folder) as storage:
        storage.create_topic("events", 1, ROLL_EVERY_BATCH)
        storage.partition("events", 0).append(batch([b"v%d" % i for i in range(5)]))
        storage.partition("events", 0).append(batch([b"v5"]))
    # A segment at 3 holding a batch stamped 3: the older broker handed out 3 and 4 twice.
    twice = bytearray(batch([b"again"]))
    set_base_offset(twice, next(iter_batches(twice)), 3)
    (folder / "events-0" / segment_file_name(3)).write_bytes(twice)
    with pytest.raises(StorageCorrupt, match="handed out twice"):
        Storage(folder)


def test_create_topics_that_cannot_record_the_topic_leaves_nothing_behind(
    storage: Storage, disk: _Disk
) -> None:
    storage.create_topic("events", 1, {})
    acknowledged = {storage.partition("events", 0).append(batch([b"a0"])): b"a0"}
    disk.fill(data_dir, "write_atomically")
    with pytest.raises(KafkaStorageError, match="No space left"):
        storage.create_topic("late", 2, {})
    assert "late" not in storage.topics()
    assert not list(storage.data_dir.glob("late-*"))
    _stop_offline(storage, "events")
    disk.free()
    with Storage(storage.data_dir) as reopened:
        assert reopened.topics() == {"events": 1}
    _assert_holds(storage.data_dir, "events", acknowledged)


def test_delete_records_that_cannot_write_the_log_start_moves_nothing(
    storage: Storage, disk: _Disk
) -> None:
    storage.create_topic("events", 1, ROLL_EVERY_BATCH)
    log = storage.partition("events", 0)
    acknowledged = {}
    for i in range(4):
        acknowledged[log.append(batch([b"a%d" % i]))] = b"a%d" % i
    disk.fill(log_module, "write_atomically")
    with pytest.raises(KafkaStorageError, match="No space left"):
        log.delete_records(2)
    assert log.log_start_offset == 0 and len(log.segments) == 4
    _stop_offline(storage, "events")
    disk.free()
    _assert_holds(storage.data_dir, "events", acknowledged)


def test_a_config_change_that_cannot_be_saved_does_not_act(storage: Storage, disk: _Disk) -> None:
    storage.create_topic("events", 1, {"retention.ms": "600000"})
    acknowledged = {storage.partition("events", 0).append(batch([b"a0"])): b"a0"}
    disk.fill(data_dir, "write_atomically")
    with pytest.raises(KafkaStorageError, match="No space left"):
        storage.alter_topic_config("events", {"retention.ms": "1"}, [])
    assert storage.topic_config("events").retention_ms == 600000
    assert storage.enforce_retention() == []  # offline: nothing is deleted either
    _stop_offline(storage, "events")
    disk.free()
    with Storage(storage.data_dir) as reopened:
        assert reopened.topic_config("events").retention_ms == 600000
    _assert_holds(storage.data_dir, "events", acknowledged)
