"""A broker process whose disk fills during a segment roll, CreateTopics, DeleteRecords and a
config change: the client gets KAFKA_STORAGE_ERROR (never a dropped connection), nothing the
failed request did is left behind, and after a clean restart a consumer starting at 0 or at any
offset near the failure reads every acknowledged offset with exactly the record acknowledged
there, and the next records get the next offsets (none is handed out twice).

Two disks: a real 2 MiB tmpfs filled with a ballast file (root only, else skipped), and a
48 KiB RLIMIT_FSIZE on the broker process, which runs everywhere. A file-size limit fails only
files that grow past it: topics.json (big config values) does, the few bytes a roll or
DeleteRecords writes never do; test_disk_full_steps.py fails those steps in-process everywhere.

Apache Kafka answers the first failed write the same way (KAFKA_STORAGE_ERROR) but then halts,
because its only log dir went offline (LogDirFailureChannel), where the embedded broker stays up
with its data folder offline. test_a_full_disk_fails_produce_and_a_restart_keeps_every_record runs
on both, with each broker's expectations; the step tests (a roll, CreateTopics, ...) are the
embedded broker's: on Kafka each of them would end in the same halt.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kafka_app.broker.broker_helpers import leads_every_partition, wait_until
from tests.kafka_app.broker.disk_full_helpers import (
    BROKER_KINDS,
    KAFKA_STORAGE_ERROR,
    BrokerLauncher,
    SmallDisk,
    alter_config,
    commit_offset,
    committed_offset,
    consume_from,
    create_topic_code,
    delete_records,
    describe_config,
    fetch_error,
    produce,
)

pytestmark = pytest.mark.e2e

TMPFS_BYTES = 2 * 1024 * 1024
FSIZE_LIMIT = 48 * 1024
OFFSET_OUT_OF_RANGE = 1
NOT_COORDINATOR = 16  # Kafka's answer to a commit its offsets log could not store
# Two stored-only configs of 30,000 characters: topics.json grows past FSIZE_LIMIT.
BIG_CONFIGS = {
    "leader.replication.throttled.replicas": "1:0," * 7500,
    "follower.replication.throttled.replicas": "2:0," * 7500,
}
ONLY_TMPFS = (
    "RLIMIT_FSIZE fails only a file growing past it; this step writes a few bytes, "
    "so only a full tmpfs fails it here (test_disk_full_steps.py fails it in-process)"
)


def _mounted(kind: str, root: Path, why_not: str) -> Iterator[SmallDisk]:
    disk = SmallDisk(kind, root, TMPFS_BYTES, FSIZE_LIMIT)
    if not disk.mount():
        pytest.skip(why_not)
    try:
        yield disk
    finally:
        disk.unmount()


@pytest.fixture(params=["tmpfs", "rlimit"])
def small_disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SmallDisk]:
    yield from _mounted(
        request.param,
        tmp_path / "disk",
        "cannot mount a tmpfs here (needs root); the rlimit case still runs",
    )


@pytest.fixture
def launcher(small_disk: SmallDisk, tmp_path: Path, free_port: int) -> Iterator[BrokerLauncher]:
    """Starts embedded brokers on the small disk; depends on it so brokers stop first."""
    with BrokerLauncher("embedded", tmp_path / "log", free_port) as started:
        yield started


@pytest.fixture
def full_tmpfs(tmp_path: Path) -> Iterator[SmallDisk]:
    yield from _mounted("tmpfs", tmp_path / "disk", "cannot mount a tmpfs here (needs root)")


@pytest.fixture(params=BROKER_KINDS)
def any_launcher(
    request: pytest.FixtureRequest, full_tmpfs: SmallDisk, tmp_path: Path, free_port: int
) -> Iterator[BrokerLauncher]:
    """Starts brokers of each kind on the tmpfs; depends on it so brokers stop first."""
    with BrokerLauncher(request.param, tmp_path / "log", free_port) as started:
        yield started


def _value(index: int, size: int) -> bytes:
    return b"%06d" % index + b"x" * (size - 6)


def _produce_all(port: int, topic: str, values: list[bytes]) -> dict[int, bytes]:
    """Produce each value; every one must be acknowledged. Returns offset -> value."""
    acknowledged = {}
    for value in values:
        code, offset = produce(port, topic, value)
        assert code == 0, f"produce to {topic} answered error {code}"
        assert offset not in acknowledged, f"offset {offset} acknowledged twice"
        acknowledged[offset] = value
    return acknowledged


def _assert_acknowledged(
    bootstrap: str, topic: str, acknowledged: dict[int, bytes], near: int, first: int = 0
) -> None:
    """Consumers from `first` and from each offset around `near` read exactly the acknowledged
    records, in offset order, up to the end (which is right after the last acknowledged one)."""
    end = max(acknowledged) + 1
    starts = sorted({first, *(o for o in range(near - 2, near + 2) if first <= o <= end)})
    read = consume_from(bootstrap, topic, starts)
    for start in starts:
        expected = [(o, acknowledged[o]) for o in range(start, end)]
        assert read[start] == expected, f"a consumer from {start} read {read[start][:3]}..."


def _fill(disk: SmallDisk) -> dict[str, str]:
    """Make the next write fail: fill the tmpfs, or return configs too big for the rlimit."""
    if disk.kind == "tmpfs":
        disk.fill()
        return {}
    return BIG_CONFIGS


def test_a_full_disk_fails_produce_and_a_restart_keeps_every_record(
    full_tmpfs: SmallDisk, any_launcher: BrokerLauncher
) -> None:
    """What a producer sees when the disk fills, and what a consumer from 0 reads after a restart
    with space again, on each broker. Measured on Kafka 4.1.2: records that fit the segment's last
    page still go in; the first write that needs a block fails with KAFKA_STORAGE_ERROR, the log
    dir goes offline, and as it was the last one Kafka halts (exit 1) within a second."""
    broker = any_launcher.start(full_tmpfs.data_dir)
    assert create_topic_code(broker.port, "events") == 0
    wait_until(
        lambda: leads_every_partition(broker.port, "events"), 30, "the broker to lead events-0"
    )
    acknowledged = _produce_all(broker.port, "events", [_value(i, 1000) for i in range(5)])
    full_tmpfs.fill()
    index = len(acknowledged)
    code, offset = produce(broker.port, "events", _value(index, 1000))
    while code == 0:  # the last page's room (a few KiB) still takes records on both brokers
        acknowledged[offset] = _value(index, 1000)
        index += 1
        code, offset = produce(broker.port, "events", _value(index, 1000))
    assert (code, offset) == (KAFKA_STORAGE_ERROR, -1)
    failed_at = max(acknowledged) + 1
    if any_launcher.kind == "embedded":  # stays up, every partition offline until a restart
        assert fetch_error(broker.port, "events", 0) == KAFKA_STORAGE_ERROR
        assert broker.stop() == 0
    else:  # Kafka halts: its only log dir is offline
        ended = broker.exited(60)
        assert ended is not None, "Apache Kafka kept running with its only log dir offline"
        assert ended[0] == 1 and "LogDirFailureChannel" in ended[1], ended
    full_tmpfs.free()

    broker = any_launcher.start(full_tmpfs.data_dir)
    wait_until(
        lambda: leads_every_partition(broker.port, "events"), 30, "the broker to lead events-0"
    )
    _assert_acknowledged(broker.bootstrap, "events", acknowledged, near=failed_at)
    acknowledged |= _produce_all(broker.port, "events", [_value(i, 1000) for i in range(2)])
    assert sorted(acknowledged) == list(range(failed_at + 2))  # no offset handed out twice
    assert broker.stop() == 0


def test_a_roll_on_a_full_disk_hands_out_no_offset_twice(
    small_disk: SmallDisk, launcher: BrokerLauncher
) -> None:
    if small_disk.kind == "rlimit":
        pytest.skip(ONLY_TMPFS)
    broker = launcher.start(small_disk.data_dir)
    assert create_topic_code(broker.port, "rolls", {"segment.bytes": "6000"}) == 0
    acknowledged = _produce_all(broker.port, "rolls", [_value(i, 1000) for i in range(5)])
    small_disk.fill()
    assert produce(broker.port, "rolls", _value(5, 1000)) == (KAFKA_STORAGE_ERROR, -1)  # a roll
    # 100 bytes would still fit the old segment's last block: the issue acknowledged them at 5.
    assert produce(broker.port, "rolls", _value(99, 100))[0] == KAFKA_STORAGE_ERROR
    assert fetch_error(broker.port, "rolls", 0) == KAFKA_STORAGE_ERROR  # offline until restart
    small_disk.free()
    assert broker.stop() == 0
    partition = small_disk.data_dir / "rolls-0"
    assert [p.stat().st_size > 0 for p in sorted(partition.glob("*.log"))] == [True]

    broker = launcher.start(small_disk.data_dir)
    _assert_acknowledged(broker.bootstrap, "rolls", acknowledged, near=5)
    acknowledged |= _produce_all(broker.port, "rolls", [_value(i, 1000) for i in range(5, 8)])
    assert sorted(acknowledged) == list(range(8))
    assert broker.stop() == 0
    broker = launcher.start(small_disk.data_dir)
    _assert_acknowledged(broker.bootstrap, "rolls", acknowledged, near=5)


def test_create_topics_on_a_full_disk_is_undone(
    small_disk: SmallDisk, launcher: BrokerLauncher
) -> None:
    limit = small_disk.fsize_limit
    broker = launcher.start(small_disk.data_dir, limit)
    assert create_topic_code(broker.port, "events") == 0
    events = _produce_all(broker.port, "events", [_value(i, 100) for i in range(3)])
    configs = _fill(small_disk)
    assert create_topic_code(broker.port, "late", configs) == KAFKA_STORAGE_ERROR
    assert produce(broker.port, "late", b"lost")[0] == KAFKA_STORAGE_ERROR  # not acknowledged
    small_disk.free()
    assert broker.stop() == 0
    assert not (small_disk.data_dir / "late-0").exists()

    broker = launcher.start(small_disk.data_dir, limit)
    assert create_topic_code(broker.port, "late") == 0  # it did not exist: no TOPIC_ALREADY_EXISTS
    late = _produce_all(broker.port, "late", [_value(i, 100) for i in range(5)])
    assert broker.stop() == 0
    broker = launcher.start(small_disk.data_dir, limit)
    _assert_acknowledged(broker.bootstrap, "late", late, near=4)
    _assert_acknowledged(broker.bootstrap, "events", events, near=3)


def test_delete_records_on_a_full_disk_moves_nothing(
    small_disk: SmallDisk, launcher: BrokerLauncher
) -> None:
    if small_disk.kind == "rlimit":
        pytest.skip(ONLY_TMPFS)
    broker = launcher.start(small_disk.data_dir)
    assert create_topic_code(broker.port, "events", {"segment.bytes": "1500"}) == 0
    events = _produce_all(broker.port, "events", [_value(i, 500) for i in range(10)])
    small_disk.fill()
    assert delete_records(broker.port, "events", 5) == (KAFKA_STORAGE_ERROR, -1)
    assert fetch_error(broker.port, "events", 0) == KAFKA_STORAGE_ERROR
    small_disk.free()
    assert broker.stop() == 0

    broker = launcher.start(small_disk.data_dir)
    _assert_acknowledged(broker.bootstrap, "events", events, near=5)  # still from 0
    assert delete_records(broker.port, "events", 5) == (0, 5)
    assert broker.stop() == 0
    broker = launcher.start(small_disk.data_dir)
    assert fetch_error(broker.port, "events", 4) == OFFSET_OUT_OF_RANGE  # the deletion lasted
    _assert_acknowledged(broker.bootstrap, "events", events, near=6, first=5)


def test_a_config_change_on_a_full_disk_does_not_act(
    small_disk: SmallDisk, launcher: BrokerLauncher
) -> None:
    limit = small_disk.fsize_limit
    broker = launcher.start(small_disk.data_dir, limit)
    assert create_topic_code(broker.port, "events", {"retention.ms": "600000"}) == 0
    events = _produce_all(broker.port, "events", [_value(i, 100) for i in range(4)])
    configs = _fill(small_disk)
    assert (
        alter_config(broker.port, "events", {"retention.ms": "1000", **configs})
        == KAFKA_STORAGE_ERROR
    )
    assert describe_config(broker.port, "events", "retention.ms") == "600000"
    small_disk.free()
    assert broker.stop() == 0

    broker = launcher.start(small_disk.data_dir, limit)
    assert describe_config(broker.port, "events", "retention.ms") == "600000"
    _assert_acknowledged(broker.bootstrap, "events", events, near=4)
    events |= _produce_all(broker.port, "events", [_value(4, 100)])
    assert sorted(events) == list(range(5))


def test_an_offset_commit_on_a_full_disk_answers_not_coordinator(
    small_disk: SmallDisk, launcher: BrokerLauncher
) -> None:
    limit = small_disk.fsize_limit
    broker = launcher.start(small_disk.data_dir, limit)
    assert create_topic_code(broker.port, "events") == 0
    assert commit_offset(broker.port, "readers", "events", 1, "") == 0
    if small_disk.kind == "tmpfs":
        small_disk.fill()
    # 4000-character metadata: past the journal's last block on the tmpfs, past the rlimit soon.
    codes = [
        commit_offset(broker.port, "readers", "events", offset, "m" * 4000)
        for offset in range(2, 20)
    ]
    assert NOT_COORDINATOR in codes, codes
    stored = 1 + codes.index(NOT_COORDINATOR)  # the last commit answered 0
    assert set(codes[codes.index(NOT_COORDINATOR) :]) == {NOT_COORDINATOR}  # offline from then on
    small_disk.free()
    assert broker.stop() == 0

    broker = launcher.start(small_disk.data_dir, limit)
    assert committed_offset(broker.bootstrap, "readers", "events") == stored
    assert commit_offset(broker.port, "readers", "events", 42, "") == 0
    assert broker.stop() == 0
    broker = launcher.start(small_disk.data_dir, limit)
    assert committed_offset(broker.bootstrap, "readers", "events") == 42
