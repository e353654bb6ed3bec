"""The Kafka side of a run: a broker (or a cluster) and the producer, each through its command line.

Kafka is the broker of the run's kind (`python -m kafka_app broker`, embedded or Apache Kafka)
on a free port with its data in the run's folder, or a Kafka given with `--bootstrap-servers`.
Three Apache Kafka brokers are the one exception to "only through the command line": see
`KafkaSide._start_apache_cluster`. The producer (`python -m kafka_app --bootstrap-servers …`)
runs as its own process so it can be stopped while the broker keeps the data.

Usage:
    kafka = KafkaSide(group, folders, timings, topic="Experience", retention_sec=15)
    kafka.start()                      # the broker, then the producer's first message
    kafka.stop_producer()
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from kafka_app.broker.settings import BrokerSettings
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.message_line import is_message_line
from kafka_app.settings import ProducerAppSettings
from launch.commands import broker_command, producer_command
from launch.errors import ProcessError
from launch.folders import Folders
from launch.group import ProcessGroup
from launch.ports import free_port, port_open
from launch.process import ManagedProcess, wait_while_alive
from launch.waiting import Progress

if TYPE_CHECKING:
    from kafka_app.apache.cluster import ApacheKafka

__all__ = ["KafkaSide", "KafkaTimings"]

# A send may wait this long on a cluster: killing a leader, or two stale followers starting
# again before one is elected, takes Kafka 10-25 s here (measured), beyond the producer's 30 s
# on a busy machine.
_CLUSTER_SEND_TIMEOUT_SEC = 180.0


class KafkaTimings(Protocol):
    """What the Kafka side reads of a run's timings (the scenarios' `Timings` is one): Kafka's
    retention clock, the producer's pace, and how long a broker may take to listen."""

    @property
    def segment_sec(self) -> float: ...

    @property
    def retention_check_sec(self) -> float: ...

    @property
    def retention_initial_delay_sec(self) -> float: ...

    @property
    def interval_sec(self) -> float: ...

    @property
    def kafka_start_timeout_sec(self) -> float: ...


class KafkaSide:
    """The broker (unless external) and the producer of one run."""

    def __init__(
        self,
        group: ProcessGroup,
        folders: Folders,
        timings: KafkaTimings,
        *,
        topic: str,
        retention_sec: float,
        bootstrap_servers: str | None = None,
        python: str = sys.executable,
        progress: Progress | None = None,
        partitions: int = 1,
        proxy_port: int | None = None,
        kind: str = "embedded",
        brokers: int = 1,
        kafka_version: str | None = None,
        records: Path | None = None,
    ) -> None:
        self.group, self.folders, self.timings = group, folders, timings
        # A user's own records the producer sends instead of the counter (--records).
        self.records = records
        self.kind, self.brokers = kind, brokers
        self.kafka_version = kafka_version  # Apache Kafka's; None: kafka_app's pinned default
        # The nodes of a cluster (brokers > 1), which the caller kills and starts one by one.
        self.cluster: ApacheKafka | None = None
        # With a proxy port the broker gets a second listener that advertises the proxy (which
        # the caller runs, to cut the network); `second_port` is where the proxy forwards to.
        self.proxy_port = proxy_port
        self.second_port: int | None = None
        self.topic, self.retention_sec, self.partitions = topic, retention_sec, partitions
        self.external = bootstrap_servers is not None
        self.bootstrap_servers = bootstrap_servers or ""
        self.python, self.progress = python, progress
        self.broker: ManagedProcess | None = None
        self.producer: ManagedProcess | None = None

    def start_broker(self) -> None:
        """Start the broker of this run's kind (nothing when Kafka is external)."""
        if self.external or self.broker is not None or self.cluster is not None:
            return
        if self.brokers > 1:
            self._start_apache_cluster()
            return
        starters = {"embedded": self._start_embedded_broker, "apache": self._start_apache_kafka}
        if self.kind not in starters:
            raise ProcessError(
                f"no way to start a Kafka of kind {self.kind!r} here; known: {', '.join(starters)}"
            )
        starters[self.kind]()

    def _start_embedded_broker(self) -> None:
        self._start_broker_process(
            KafkaChoice(kafka="embedded"), self.timings.kafka_start_timeout_sec
        )

    def _start_apache_kafka(self) -> None:
        """Apache Kafka through the same command (`python -m kafka_app broker --kafka apache`):
        one JVM node, fetched once into the project's cache; a JVM takes longer to listen."""
        self._start_broker_process(
            KafkaChoice(kafka="apache", kafka_version=self.kafka_version),
            2 * self.timings.kafka_start_timeout_sec,
        )

    def _start_apache_cluster(self) -> None:
        """`brokers` Apache Kafka nodes owned by this process, not by a `python -m kafka_app
        broker --brokers 3` child: a scenario kills, stops and starts single nodes, which only
        the owner of their JVMs can do (the command runs them all in the foreground and offers
        no way to address one). Each JVM still dies with this process (PR_SET_PDEATHSIG), and
        `close()` stops them all."""
        from kafka_app.apache.cluster import ApacheKafka

        if self.kind != "apache":
            raise ProcessError(
                f"{self.brokers} brokers need Apache Kafka; the {self.kind} broker is one node"
            )
        t = self.timings
        settings = BrokerSettings(
            port=0,
            data_dir=self.folders.kafka_data,
            log_dir=self.folders.log,
            retention_check_sec=t.retention_check_sec,
            retention_initial_delay_sec=t.retention_initial_delay_sec,
        )
        cluster = ApacheKafka(
            settings,
            brokers=self.brokers,
            version=self.kafka_version,
            progress=False,
            start_timeout=4 * t.kafka_start_timeout_sec,
        )
        self.cluster = cluster
        if self.progress is not None:
            self.progress(f"{self.brokers} Apache Kafka nodes to start", 0.0)
        cluster.start()
        self.bootstrap_servers = cluster.bootstrap_servers

    def _start_broker_process(self, choice: KafkaChoice, timeout: float) -> None:
        port = free_port()
        self.bootstrap_servers = f"127.0.0.1:{port}"
        t = self.timings
        if self.proxy_port is not None:
            self.second_port = free_port()
        broker_settings = BrokerSettings(
            port=port,
            data_dir=self.folders.kafka_data,
            log_dir=self.folders.log,
            retention_check_sec=t.retention_check_sec,
            retention_initial_delay_sec=t.retention_initial_delay_sec,
            second_listener=(
                f"{self.second_port}=127.0.0.1:{self.proxy_port}"
                if self.second_port is not None
                else None
            ),
        )
        self.broker = self.group.start(
            "broker", broker_command(broker_settings, choice, python=self.python)
        )
        wait_while_alive(
            self.broker,
            lambda: port_open(port),
            what="listening on its port",
            timeout=timeout,
            name="the broker",
            shown_as="the broker to listen",
            progress=self.progress,
        )

    def start_producer(
        self, acks: str = "all", first_value: int | None = None, grow_partitions: bool = False
    ) -> ManagedProcess:
        """Start (or start again) the producer; returns once it has sent its first message.
        On a cluster the topic gets a replica on every broker. With `grow_partitions` the
        producer first grows the topic to `self.partitions` (`--grow-partitions`)."""
        t = self.timings
        name = "producer" if self.producer is None else f"producer-{len(self.group.processes)}"
        cluster = self.cluster is not None
        producer_settings = ProducerAppSettings(
            bootstrap_servers=self.bootstrap_servers,
            topic=self.topic,
            partitions=self.partitions,
            retention_sec=self.retention_sec,
            segment_sec=t.segment_sec,
            interval_sec=t.interval_sec,
            log_dir=self.folders.log,
            replication_factor=self.brokers if cluster else 1,
            acks=acks,
            first_value=first_value,
            grow_partitions=grow_partitions,
            send_timeout_sec=_CLUSTER_SEND_TIMEOUT_SEC if cluster else 30.0,
            records=self.records,
        )
        self.producer = self.group.start(
            name, producer_command(producer_settings, python=self.python)
        )
        self.producer.wait_for(
            self._sent_a_message,
            timeout=t.kafka_start_timeout_sec,
            what="its first message",
            progress=self.progress,
        )
        return self.producer

    def send_burst(self, count: int, timeout: float = 300.0) -> ManagedProcess:
        """`count` messages as fast as Kafka takes them (`python -m kafka_app --count N
        --burst`), continuing after the highest value in the topic; returns once all are
        acknowledged. Stop the steady producer first: two producers would send the same values."""
        producer_settings = ProducerAppSettings(
            bootstrap_servers=self.bootstrap_servers,
            topic=self.topic,
            partitions=self.partitions,
            retention_sec=self.retention_sec,
            segment_sec=self.timings.segment_sec,
            log_dir=self.folders.log,
            replication_factor=self.brokers if self.cluster is not None else 1,
            count=count,
            burst=True,
        )
        burst = self.group.start(
            f"burst-{len(self.group.processes)}",
            producer_command(producer_settings, python=self.python),
        )
        code = burst.wait_exit(timeout, progress=self.progress)
        if code != 0:
            raise ProcessError(
                f"the burst of {count} messages failed with exit code {code}: {burst.tail()}"
            )
        return burst

    def _sent_a_message(self, output: str) -> bool:
        """Whether the producer's console shows a message sent to this topic (the counter's, or
        a user's record)."""
        return any(is_message_line(line, self.topic) for line in output.splitlines())

    def start(self) -> None:
        self.start_broker()
        self.start_producer()

    def send_negative_key(self) -> None:
        assert self.producer is not None, "start the producer first"
        self.producer.send_line("")

    def stop_producer(self) -> None:
        if self.producer is not None:
            self.producer.terminate(timeout=15)

    def close(self) -> None:
        """Stop a cluster's nodes (the processes are the group's, stopped with it)."""
        if self.cluster is not None:
            self.cluster.stop()
