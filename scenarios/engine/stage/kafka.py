"""The stage's Kafka: a broker of the run's kind, the topic, the producer, retention, offsets.

A scenario asks for "Kafka", never for one broker by name: which broker runs is the run's
setting (`RunSettings.kafka`), read here and nowhere else. A Kafka given with
`--bootstrap-servers` is used as it is, with a topic of the run's own; so is the broker a run
of several scenarios starts for them (`RunSettings.shared_kafka`), unless the scenario needs a
cluster or a proxy in front of Kafka, which stay its own.

A scenario that needs several brokers says how many (`start(..., brokers=3)`); only Apache
Kafka runs a cluster here, so on another stack the step refuses in one line, and the runner
skips such a scenario beforehand (`brokers_unavailable`).

Usage:
    stage.kafka.start()                      # retention endless: nothing ages out
    value = stage.kafka.send_negative_key()
    final = stage.kafka.stop_producer()
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kafka import KafkaProducer
from kafka.admin import KafkaAdminClient

from kafka_app.message_line import ProducerLine, parse_message
from kafka_app.topic_setup import ensure_topic
from launch.kafka import KafkaSide
from launch.ports import free_port
from launch.waiting import wait_until
from scenarios.engine.faults.tcp_proxy import TcpProxy
from scenarios.engine.observers.kafka_probe import KafkaProbe, OffsetWindow
from scenarios.engine.observers.sampler import OffsetSampler
from scenarios.errors import StepFailed
from spark_app.offsets import TopicPartition
from spark_app.source.kafka_client import GroupOffsets

if TYPE_CHECKING:
    from scenarios.engine.settings import RunSettings
    from scenarios.engine.stage import Stage

__all__ = ["KafkaPart", "TopicRecord", "brokers_unavailable"]

# The Kafka kind that runs a cluster of several brokers on this machine (kafka_app/apache/).
_CLUSTER_KIND = "apache"


@dataclass(frozen=True)
class TopicRecord:
    """A message the stage writes itself, beside the producer's counter: to a partition of its
    choosing (None: the producer's default partitioner), with a key or none."""

    value: str
    key: str | None = None
    partition: int | None = None
    # The record's Kafka timestamp (None: Kafka's time of writing): a kept record put back as
    # it was first sent, so a query's event time reads the same (check-change --corpus).
    timestamp_ms: int | None = None


def brokers_unavailable(settings: RunSettings, brokers: int) -> str | None:
    """Why this run cannot give a scenario `brokers` brokers, in one line; None when it can."""
    if brokers <= 1:
        return None
    if settings.bootstrap_servers:
        return (
            f"needs {brokers} Kafka brokers it starts and kills itself; a Kafka given with "
            f"--bootstrap-servers is not ours to kill: drop --bootstrap-servers"
        )
    if settings.kafka != _CLUSTER_KIND:
        return (
            f"needs {brokers} Kafka brokers, and the {settings.kafka} broker is one node: "
            f"run it on Apache Kafka (--stack {_CLUSTER_KIND}/connector or "
            f"{_CLUSTER_KIND}/python)"
        )
    return None


class KafkaPart:
    """Kafka as the scenario sees it; every step but `start` needs a started Kafka."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage
        self._side: KafkaSide | None = None
        # The scenario's own look at the topic's offsets, renewed with each producer start.
        self._probe: KafkaProbe | None = None
        self._sampler: OffsetSampler | None = None
        # Set when the app reaches Kafka through a proxy the network part can cut.
        self.proxy: TcpProxy | None = None
        self._app_bootstrap = ""

    # -- life cycle ---------------------------------------------------------------------------
    def start(
        self,
        retention_sec: float | None = None,
        partitions: int = 1,
        behind_proxy: bool = False,
        brokers: int = 1,
        interval_sec: float | None = None,
    ) -> None:
        """The broker and the producer, the topic's retention endless unless `retention_sec` says
        otherwise (most lessons must not lose a message to retention); with `behind_proxy` the app
        reaches Kafka only through a proxy the scenario can cut (`stage.network`), while the producer
        writes directly.
        With `brokers=3`, a cluster whose nodes `stage.brokers` kills and starts, the topic
        replicated on all three. `interval_sec`: the producer's pace, when the run's timings'
        is too slow (a soak needs a message for every batch: no new data, no batch)."""
        stage = self._stage
        if retention_sec is None:
            retention_sec = stage.timings.endless_retention_sec
        unavailable = brokers_unavailable(stage.settings, brokers)
        if unavailable is not None:
            raise StepFailed(f"this scenario {unavailable}")
        external = stage.settings.bootstrap_servers
        if behind_proxy and external:
            raise StepFailed(
                "this scenario puts a proxy of its own between the Spark app and an "
                "embedded broker; run it without --bootstrap-servers"
            )
        # The run's broker serves a single broker reached directly; a cluster or a proxy is
        # the scenario's own (it kills, upgrades or cuts it).
        shared = stage.settings.shared_kafka if brokers == 1 and not behind_proxy else None
        # A Kafka others use too: each scenario run gets its own topic there.
        topic = (
            f"Experience-{stage.name}-{int(time.time())}" if external or shared else "Experience"
        )
        timings = (
            stage.timings
            if interval_sec is None
            else replace(stage.timings, interval_sec=interval_sec)
        )
        side = KafkaSide(
            stage.group,
            stage.folders,
            timings,
            topic=topic,
            retention_sec=retention_sec,
            bootstrap_servers=external or shared,
            python=stage.settings.python,
            progress=stage.waiting,
            partitions=partitions,
            kind=stage.settings.kafka,
            proxy_port=free_port() if behind_proxy else None,
            brokers=brokers,
            kafka_version=stage.settings.kafka_version or None,
            records=stage.settings.records,
        )
        self._side = side
        with stage.spent.timed("kafka start"):
            side.start_broker()
        self._app_bootstrap = self._start_proxy(side) if behind_proxy else side.bootstrap_servers
        stage.timeline.event("Kafka up", "start")
        self._start_producer(side)
        stage.say(
            f"Kafka at {side.bootstrap_servers}"
            + (" (the run's)" if shared else "")
            + f", topic {topic}"
            + (f" with {partitions} partitions" if partitions != 1 else "")
            + (f", {brokers} replicas" if brokers != 1 else "")
            + f", retention {retention_sec:g} s; the producer is sending"
        )
        self._sampler = OffsetSampler(
            stage.timeline,
            side.bootstrap_servers,
            topic,
            lambda: stage.store.logs_view(stage.shown_checkpoints),
        ).start()

    def _start_proxy(self, side: KafkaSide) -> str:
        assert side.proxy_port is not None and side.second_port is not None
        self.proxy = TcpProxy(side.proxy_port, ("127.0.0.1", side.second_port)).start()
        self._stage.say(
            f"the Spark app will reach Kafka through a proxy at 127.0.0.1:{side.proxy_port}"
        )
        return f"127.0.0.1:{side.proxy_port}"

    def close(self) -> None:
        """Stop the sampler, the probe and the proxy (the processes are the stage's group's)."""
        if self._sampler is not None:
            self._sampler.stop()
        if self._probe is not None:
            self._probe.stop()
        if self._side is not None:
            self._side.close()
        if self.proxy is not None:
            self.proxy.stop()

    @property
    def started(self) -> bool:
        return self._side is not None

    @property
    def side(self) -> KafkaSide | None:
        """The broker and producer processes (the brokers part reaches a cluster's nodes here)."""
        return self._side

    def _started(self) -> KafkaSide:
        if self._side is None:
            raise StepFailed(
                "Kafka has not been started in this scenario: call stage.kafka.start() first"
            )
        return self._side

    # -- what the app and the checks need to know -----------------------------------------
    @property
    def topic(self) -> str:
        return self._started().topic

    @property
    def bootstrap_servers(self) -> str:
        """Where Kafka listens for the producer and the scenario's own look-ups."""
        return self._started().bootstrap_servers

    @property
    def app_bootstrap_servers(self) -> str:
        """Where the app reaches Kafka: the proxy's address when there is one."""
        self._started()
        return self._app_bootstrap

    def window(self) -> OffsetWindow:
        """The topic's earliest and latest offsets now (waits while Kafka does not answer)."""
        return wait_until(
            self._probed().window,
            timeout=30.0,
            what="Kafka's offsets",
            progress=self._stage.waiting,
        )

    def values_in_topic(self) -> list[int]:
        """Every value the topic holds now, from its earliest to its latest offset."""
        return self._probed().values()

    def _probed(self) -> KafkaProbe:
        side = self._started()
        if self._probe is None:
            self._probe = KafkaProbe(side.bootstrap_servers, side.topic)
        return self._probe

    def group_offset(self, group: str, tp: TopicPartition) -> int | None:
        """The offset consumer group `group` has committed for `tp`, if any."""
        with GroupOffsets(self.bootstrap_servers, group) as offsets:
            return offsets.committed([tp]).get(tp)

    # -- the producer ---------------------------------------------------------------------------
    def _start_producer(
        self,
        side: KafkaSide,
        acks: str = "all",
        first_value: int | None = None,
        grow_partitions: bool = False,
    ) -> None:
        """Start (again) the producer, and a fresh probe with it: close the old one's consumer."""
        side.start_producer(acks=acks, first_value=first_value, grow_partitions=grow_partitions)
        if self._probe is not None:
            self._probe.stop()
        self._probe = KafkaProbe(side.bootstrap_servers, side.topic)

    def send_negative_key(self) -> int:
        """Press Enter in the producer; returns the value of the message it sent with key -value
        (a user's records have no value to name it by: -1, once the marked record is sent)."""
        side = self._started()
        assert side.producer is not None, "the producer starts with Kafka"
        mark = side.producer.mark()
        side.send_negative_key()
        self._stage.timeline.event("Enter: negative key", "note")
        if self._stage.settings.records is not None:
            side.producer.wait_for(
                _marked_record, since=mark, timeout=30, what="a record with the crash mark"
            )
            return -1
        sent = side.producer.wait_for(
            _negative_line, since=mark, timeout=30, what="a message with a negative key"
        )
        assert isinstance(sent, ProducerLine)
        if sent.key != -sent.value:
            raise StepFailed(
                f"the producer sent key {sent.key} with value {sent.value}; a "
                f"negative key must be minus its value"
            )
        return sent.value

    @property
    def producer_running(self) -> bool:
        side = self._started()
        return side.producer is not None and side.producer.running

    def producer_output(self) -> str:
        """What the current producer printed: a line per acknowledged message, with offsets."""
        side = self._started()
        return side.producer.output() if side.producer is not None else ""

    def restart_producer(self, acks: str, first_value: int | None = None) -> None:
        """Stop the producer (if it runs) and start another with `acks` ("all" or "1"); it
        continues after the highest value in the topic, or at `first_value` when given."""
        side = self._started()
        if self.producer_running:
            self.stop_producer()
        self._start_producer(side, acks=acks, first_value=first_value)
        self._stage.timeline.event(f"producer acks={acks}", "start")
        self._stage.say(
            f"the producer sends again, with acks={acks}"
            + (f", from value {first_value}" if first_value is not None else "")
        )

    def send_backlog(self, count: int) -> OffsetWindow:
        """A backlog: the steady producer stops, `count` messages follow as fast as Kafka takes
        them (`python -m kafka_app --count N --burst`), and the steady producer goes on after
        them. Returns the topic's offsets right after the burst."""
        side = self._started()
        if self.producer_running:
            side.stop_producer()
        started = time.monotonic()
        with self._stage.spent.timed("kafka burst"):
            side.send_burst(count)
        took = time.monotonic() - started
        window = self.window()
        self._stage.timeline.event(f"backlog +{count:,}", "note")
        self._start_producer(side)
        self._stage.say(
            f"a backlog of {count:,} messages sent in {took:.1f} s (up to offset "
            f"{window.latest:,}); the steady producer goes on after it"
        )
        return window

    def grow_partitions(self, partitions: int) -> None:
        """Add partitions to the topic, up to `partitions` in all, as an operator would: the
        producer is restarted with `python -m kafka_app --partitions N --grow-partitions`, which
        grows the topic (CreatePartitions) before its first send and spreads its values over
        the N partitions from then on (value v to partition (v-1) % N)."""
        side = self._started()
        before = side.partitions
        if self.producer_running:
            side.stop_producer()
        side.partitions = partitions
        self._start_producer(side, grow_partitions=True)
        self._stage.timeline.event(f"partitions {before} -> {partitions}", "note")
        self._stage.say(
            f"topic {side.topic} grew from {before} to {partitions} partitions; the "
            f"producer sends value v to partition (v-1) % {partitions} from now on"
        )

    def recreate_topic(self, partitions: int) -> OffsetWindow:
        """Delete the topic with all its data and create it again with `partitions` partitions
        (what `kafka-topics --delete`, then `--create`, do): the producer is stopped, the topic
        deleted, and a new producer creates it and goes on after the last value it sent, so no
        value is ever sent twice. Returns the old topic's offsets as it was deleted."""
        side = self._started()
        last = self.stop_producer() if self.producer_running else self.window()
        sent = self.values_in_topic()
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap_servers)
        try:
            admin.delete_topics([side.topic])
            # Kafka deletes a topic in the background; creating it sooner would find it there.
            wait_until(
                lambda: side.topic not in admin.list_topics() or None,
                timeout=60,
                what=f"Kafka to delete topic {side.topic}",
                progress=self._stage.waiting,
            )
        finally:
            admin.close()
        self._stage.timeline.event("topic deleted", "stop")
        before = side.partitions
        side.partitions = partitions
        self._start_producer(side, first_value=max(sent, default=0) + 1)
        self._stage.timeline.event(f"topic recreated, {partitions} partition(s)", "start")
        self._stage.say(
            f"topic {side.topic} ({before} partitions, {last.latest} messages) deleted "
            f"and created again with {partitions}; the producer goes on from value "
            f"{max(sent, default=0) + 1}"
        )
        return last

    def set_topic_configs(self, configs: dict[str, str], label: str = "") -> None:
        """Change topic configs now (what `kafka-configs --alter --add-config` does); `label`
        names the change on the timeline, where the configs themselves would not fit."""
        side = self._started()
        self._probed().set_configs(configs)
        shown = ", ".join(f"{k}={v}" for k, v in configs.items())
        self._stage.timeline.event(label or shown, "note")
        self._stage.say(f"topic {side.topic}: {shown}")

    def add_topic(self, name: str, records: Sequence[TopicRecord]) -> None:
        """Create topic `name` (one partition, Kafka's default retention) and write `records`
        to it: a second team's topic a query is told to read too, or a topic of an exhibit's
        own. Created as the producer creates its own (kafka_app's topic setup)."""
        with KafkaAdminClient(bootstrap_servers=self.bootstrap_servers) as admin:
            ensure_topic(admin, name, 1, {})
        self.write(name, records)
        self._stage.timeline.event(f"topic {name}: {len(records)} messages", "note")
        self._stage.say(f"created topic {name} and wrote {len(records)} messages to it")

    def grow_topic(self, name: str, partitions: int) -> None:
        """Add partitions to `name` up to `partitions` (CreatePartitions, as `kafka-topics
        --alter --partitions` does), returning once each has a leader."""
        with KafkaAdminClient(bootstrap_servers=self.bootstrap_servers) as admin:
            grown = ensure_topic(admin, name, partitions, {}, grow=True)
        self._stage.timeline.event(
            f"{name}: partitions {grown.grown_from} -> {grown.partitions}", "note"
        )
        self._stage.say(
            f"topic {name} grew from {grown.grown_from} to {grown.partitions} "
            "partitions (CreatePartitions)"
        )

    def write(self, name: str, records: Sequence[TopicRecord]) -> None:
        """Write `records` to topic `name`, each acknowledged by Kafka (acks=all) on return."""
        producer = KafkaProducer(bootstrap_servers=self.bootstrap_servers, acks="all")
        try:
            for record in records:
                producer.send(
                    name,
                    value=record.value.encode(),
                    partition=record.partition,
                    key=None if record.key is None else record.key.encode(),
                    timestamp_ms=record.timestamp_ms,
                )
            producer.flush(timeout=30)
        finally:
            producer.close()

    def stop_producer(self) -> OffsetWindow:
        """Stop the producer; returns the topic's final offsets."""
        self._started().stop_producer()
        self._stage.timeline.event("producer stopped", "stop")
        return self.window()

    def wait_for_latest(self, latest: int, what: str, timeout: float = 60.0) -> OffsetWindow:
        """Wait until the producer has brought the topic's latest offset to `latest`."""
        return wait_until(
            lambda: _at_least(self.window(), latest),
            timeout=timeout,
            what=what,
            progress=self._stage.waiting,
        )

    # -- retention ------------------------------------------------------------------------------
    def set_retention(self, retention_sec: float) -> None:
        """Change the topic's retention now (what `kafka-configs --alter` does)."""
        self._probed().set_retention(retention_sec)
        self._stage.timeline.event(f"retention {retention_sec:g} s", "note")
        self._stage.say(f"topic retention set to {retention_sec:g} s")

    def wait_until_aged_out(self, offset: int) -> OffsetWindow:
        """Wait until retention has deleted the segment holding `offset` (earliest > offset)."""

        def aged_out() -> OffsetWindow | None:
            window = self.window()
            return window if window.earliest > offset else None

        timings = self._stage.timings
        return wait_until(
            aged_out,
            timeout=timings.aging_out_timeout_sec,
            what=f"retention to delete offset {offset}",
            progress=self._stage.waiting,
            poll=0.5,
        )

    def wait_until_earliest_settles(self) -> OffsetWindow:
        """Wait until Kafka's earliest offset stays put over two retention checks.

        After retention was raised, a deletion already under way may still move it once.
        """
        timings = self._stage.timings
        quiet_for = 2 * timings.retention_check_sec + 1.0
        seen: list[tuple[float, int]] = []

        def settled() -> OffsetWindow | None:
            window = self.window()
            now = time.monotonic()
            if not seen or seen[-1][1] != window.earliest:
                seen.append((now, window.earliest))
            return window if now - seen[-1][0] >= quiet_for else None

        return wait_until(
            settled,
            timeout=quiet_for + timings.aging_out_timeout_sec,
            what="Kafka's earliest offset to settle",
            progress=self._stage.waiting,
            poll=0.5,
        )


def _marked_record(text: str) -> bool:
    """A user's record sent with the crash mark: its producer line's key begins with '-'."""
    return any(re.search(r"\]: -\S*", line) for line in text.splitlines())


def _negative_line(text: str) -> ProducerLine | None:
    """The first message line with a negative key in the producer's console text."""
    sent = (parse_message(line) for line in text.splitlines())
    return next((line for line in sent if line is not None and line.key < 0), None)


def _at_least(window: OffsetWindow, latest: int) -> OffsetWindow | None:
    return window if window.latest >= latest else None
