"""Consumer groups: two kafka-python consumers share partitions, rebalance on join and leave, and
committed offsets come back to the group; on both brokers (`kafka_broker`)."""

from __future__ import annotations

import threading

import pytest
from kafka import KafkaConsumer, KafkaProducer

from tests.kafka_app.broker.broker_helpers import committed_offset, create_topic, wait_until

pytestmark = pytest.mark.e2e  # rebalances wait for heartbeats: several seconds

_PARTITIONS = 4
# kafka-python 3.0.12 loses a join that a poll timeout interrupts between its JoinGroup/SyncGroup
# request and the response (the member then never heartbeats or fetches). A join waits for every
# other member to rejoin, so each member polls in its own thread with a long timeout, as an
# application's consumer loop would.
_POLL_MS = 2_000


class _Member:
    """One group member polling in its own thread; `assignment` is what it owns right now."""

    def __init__(self, bootstrap: str, group: str, topic: str) -> None:
        self._consumer = KafkaConsumer(
            topic,
            bootstrap_servers=bootstrap,
            group_id=group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            heartbeat_interval_ms=300,
            session_timeout_ms=6_000,
        )
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._assignment: set[int] = set()
        self.values: list[bytes] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def assignment(self) -> set[int]:
        with self._lock:
            return set(self._assignment)

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                batches = self._consumer.poll(timeout_ms=_POLL_MS)
                with self._lock:
                    self._assignment = {tp.partition for tp in self._consumer.assignment()}
                    self.values.extend(r.value for rs in batches.values() for r in rs)
            self._consumer.commit()
        finally:
            self._consumer.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(_POLL_MS / 1000 + 15)
        assert not self._thread.is_alive(), "consumer thread did not stop"


def test_group_rebalances_when_a_member_joins_and_leaves(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "shared", partitions=_PARTITIONS)
    first = _Member(bootstrap, "pair", "shared")
    second = None
    try:
        wait_until(
            lambda: first.assignment == set(range(_PARTITIONS)), 20, "first member owning all"
        )
        second = _Member(bootstrap, "pair", "shared")

        def split_evenly() -> bool:
            mine, theirs = first.assignment, second.assignment
            return len(mine) == len(theirs) == _PARTITIONS // 2 and not mine & theirs

        wait_until(split_evenly, 30, "the partitions split between two members")
        second.close()
        second = None
        wait_until(
            lambda: first.assignment == set(range(_PARTITIONS)),
            30,
            "the remaining member taking every partition back",
        )
    finally:
        first.close()
        if second is not None:
            second.close()


def test_committed_offsets_come_back_to_the_group(kafka_broker) -> None:
    bootstrap = kafka_broker.bootstrap_servers
    create_topic(bootstrap, "resume", partitions=1)
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for i in range(6):
        producer.send("resume", value=b"%d" % i)
    producer.flush(10)

    reader = _Member(bootstrap, "readers", "resume")
    wait_until(lambda: len(reader.values) == 6, 20, "the first six records")
    reader.close()  # commits what it read
    assert committed_offset(bootstrap, "readers", "resume") == 6

    for i in range(6, 10):
        producer.send("resume", value=b"%d" % i)
    producer.flush(10)
    producer.close(5)
    again = _Member(bootstrap, "readers", "resume")
    try:
        wait_until(lambda: len(again.values) >= 4, 20, "the four newer records")
        assert again.values == [b"6", b"7", b"8", b"9"]
    finally:
        again.close()
    assert committed_offset(bootstrap, "readers", "resume") == 10
