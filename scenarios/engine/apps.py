"""The two apps as a scenario starts them: only through their command lines, as a user would.

Kafka is the embedded broker (`python -m kafka_app broker`) on a free port with its data in the
scenario's folder, or a Kafka given with `--bootstrap-servers`. Three Apache Kafka brokers are
the one exception to "only through the command line": see `KafkaSide._start_apache_cluster`. The producer
(`python -m kafka_app --bootstrap-servers …`) runs as its own process so it can be stopped while
the broker keeps the data. The Spark app (`python -m spark_app …`) is started again and again on
the same checkpoint and log folders.

Usage:
    kafka = KafkaSide(group, folders, timings, topic="Experience", retention_sec=15)
    kafka.start()
    spark = SparkLauncher(group, folders, kafka.bootstrap_servers, "Experience", timings)
    process = spark.start(fail_on_data_loss=False)
"""

from __future__ import annotations

import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from checkpoint_stores import StoreKind
from kafka_app.broker.settings import BrokerSettings
from kafka_app.kafka_choice import KafkaChoice
from kafka_app.message_line import parse_message
from kafka_app.settings import ProducerAppSettings
from scenarios.engine.observers.kafka_probe import KafkaProbe, OffsetWindow
from scenarios.engine.processes import ManagedProcess, ProcessGroup, wait_while_alive
from scenarios.engine.settings import Timings
from scenarios.engine.waiting import Progress, wait_until
from scenarios.errors import ProcessError
from spark_app.settings import SourceKind, SparkAppSettings

if TYPE_CHECKING:
    from kafka_app.apache.cluster import ApacheKafka

__all__ = ["Folders", "KafkaSide", "SparkLauncher", "free_port"]

# A send may wait this long on a cluster: killing a leader, or two stale followers starting
# again before one is elected, takes Kafka 10-25 s here (measured), beyond the producer's 30 s
# on a busy machine.
_CLUSTER_SEND_TIMEOUT_SEC = 180.0


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now (never 9092 unless the OS hands it out)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass(frozen=True)
class Folders:
    """A scenario's own folders, fresh for every run."""

    root: Path

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def log(self) -> Path:
        return self.root / "log"

    @property
    def kafka_data(self) -> Path:
        return self.root / "kafka-data"

    @property
    def processes(self) -> Path:
        return self.root / "processes"

    @property
    def output_log(self) -> Path:
        return SparkAppSettings(log_dir=self.log).output_file


class KafkaSide:
    """The broker (unless external) and the producer of one scenario."""

    def __init__(
        self,
        group: ProcessGroup,
        folders: Folders,
        timings: Timings,
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
    ) -> None:
        self.group, self.folders, self.timings = group, folders, timings
        self.kind, self.brokers = kind, brokers
        self.kafka_version = kafka_version  # Apache Kafka's; None: kafka_app's pinned default
        # The nodes of a cluster (brokers > 1), which the stage's brokers part kills and starts.
        self.cluster: ApacheKafka | None = None
        # With a proxy port the broker gets a second listener that advertises the proxy (see
        # tcp_proxy.py); `second_port` is where the proxy forwards to.
        self.proxy_port = proxy_port
        self.second_port: int | None = None
        self.topic, self.retention_sec, self.partitions = topic, retention_sec, partitions
        self.external = bootstrap_servers is not None
        self.bootstrap_servers = bootstrap_servers or ""
        self.python, self.progress = python, progress
        self.broker: ManagedProcess | None = None
        self.producer: ManagedProcess | None = None
        self.probe: KafkaProbe | None = None

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
            KafkaChoice(kafka="embedded").to_argv(), self.timings.kafka_start_timeout_sec
        )

    def _start_apache_kafka(self) -> None:
        """Apache Kafka through the same command (`python -m kafka_app broker --kafka apache`):
        one JVM node, fetched once into the project's cache; a JVM takes longer to listen."""
        self._start_broker_process(
            KafkaChoice(kafka="apache", kafka_version=self.kafka_version).to_argv(),
            2 * self.timings.kafka_start_timeout_sec,
        )

    def _start_apache_cluster(self) -> None:
        """`brokers` Apache Kafka nodes owned by this process, not by a `python -m kafka_app
        broker --brokers 3` child: a scenario kills, stops and starts single nodes, which only
        the owner of their JVMs can do (the command runs them all in the foreground and offers
        no way to address one). Each JVM still dies with this process (PR_SET_PDEATHSIG), and
        the stage stops them all when it closes."""
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

    def _start_broker_process(self, choice_argv: list[str], timeout: float) -> None:
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
            "broker",
            [self.python, "-m", "kafka_app", "broker", *broker_settings.to_argv(), *choice_argv],
        )
        wait_while_alive(
            self.broker,
            lambda: _port_open(port),
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
        )
        self.producer = self.group.start(
            name, [self.python, "-m", "kafka_app", *producer_settings.to_argv()]
        )
        self.producer.wait_for(
            self._sent_a_message,
            timeout=t.kafka_start_timeout_sec,
            what="its first message",
            progress=self.progress,
        )
        if self.probe is not None:
            self.probe.stop()  # a restarted producer's probe replaces it: close its consumer
        self.probe = KafkaProbe(self.bootstrap_servers, self.topic)
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
            [self.python, "-m", "kafka_app", *producer_settings.to_argv()],
        )
        code = burst.wait_exit(timeout, progress=self.progress)
        if code != 0:
            raise ProcessError(
                f"the burst of {count} messages failed with exit code {code}: {burst.tail()}"
            )
        return burst

    def _sent_a_message(self, output: str) -> bool:
        """Whether the producer's console shows a message sent to this topic."""
        lines = (parse_message(line) for line in output.splitlines())
        return any(line is not None and line.topic == self.topic for line in lines)

    def start(self) -> None:
        self.start_broker()
        self.start_producer()

    def send_negative_key(self) -> None:
        assert self.producer is not None, "start the producer first"
        self.producer.send_line("")

    def stop_producer(self) -> None:
        if self.producer is not None:
            self.producer.terminate(timeout=15)

    def window(self, timeout: float = 30.0) -> OffsetWindow:
        """The topic's earliest and latest offsets now (waits while Kafka does not answer)."""
        probe = self.probe or KafkaProbe(self.bootstrap_servers, self.topic)
        self.probe = probe
        return wait_until(
            probe.window, timeout=timeout, what="Kafka's offsets", progress=self.progress
        )

    def probe_values(self) -> list[int]:
        probe = self.probe or KafkaProbe(self.bootstrap_servers, self.topic)
        self.probe = probe
        return probe.values()

    def close(self) -> None:
        if self.probe is not None:
            self.probe.stop()
        if self.cluster is not None:
            self.cluster.stop()


class SparkLauncher:
    """Starts the Spark app on the scenario's checkpoint and log folders, numbered per start."""

    def __init__(
        self,
        group: ProcessGroup,
        folders: Folders,
        bootstrap_servers: str,
        topic: str,
        timings: Timings,
        python: str = sys.executable,
        name: str = "spark",
        source: SourceKind = "python",
        checkpoint_store: StoreKind = "local",
        checkpoint_store_url: str | None = None,
    ) -> None:
        self.group, self.folders, self.bootstrap_servers = group, folders, bootstrap_servers
        # Where the checkpoint folder lives: here, or its path on the stage's store.
        self.checkpoint_store, self.checkpoint_store_url = checkpoint_store, checkpoint_store_url
        self.topic, self.timings, self.python = topic, timings, python
        # Which Kafka source every start uses unless told otherwise (`run --source`).
        self.source = source
        # A second app beside the first (the upgrade's green) needs its own process names.
        self.name = name
        self.starts = 0
        self.current: ManagedProcess | None = None

    def start(self, python: str | None = None, **changes: object) -> ManagedProcess:
        """Start the app with the scenario's folders, Kafka and trigger, plus `changes` to its
        settings (e.g. `sink="at-least-once"`); a change given as None keeps the default.
        `python` runs this start on another PySpark's interpreter (scenarios/engine/spark_envs.py)."""
        self.starts += 1
        base: dict[str, object] = dict(
            bootstrap_servers=self.bootstrap_servers,
            topic=self.topic,
            checkpoint_dir=self.folders.checkpoints,
            log_dir=self.folders.log,
            trigger_sec=self.timings.trigger_sec,
            source=self.source,
            checkpoint_store=self.checkpoint_store,
            checkpoint_store_url=self.checkpoint_store_url,
        )
        base.update({name: value for name, value in changes.items() if value is not None})
        settings = SparkAppSettings(**base)  # type: ignore[arg-type]
        argv = [python or self.python, "-m", "spark_app", *settings.to_argv()]
        self.current = self.group.start(f"{self.name}-{self.starts}", argv)
        return self.current
