"""Apache Kafka as managed children: one node, or a KRaft quorum of three on this host.

The analog of `EmbeddedBroker`: a context manager with idempotent start and stop. Start fetches
the jars once (progress shown), formats each node's storage once, starts every node's JVM and
waits until each answers ApiVersions. Stop sends SIGTERM to every node, waits, then SIGKILLs
what is left; no JVM outlives it (and PR_SET_PDEATHSIG kills them if this process dies first).

Usage:
    with ApacheKafka(BrokerSettings(port=19092, data_dir=Path("kafka-data"))) as kafka:
        KafkaProducer(bootstrap_servers=kafka.bootstrap_servers).send("Experience", b"1")
    with ApacheKafka(settings, brokers=3) as cluster:   # the failover scenario
        cluster.kill(cluster.leader("Experience", 0)); cluster.start(1)
        cluster.restart_node(2, version="4.4.0")        # a rolling upgrade, one node at a time
"""

from __future__ import annotations

import errno
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from kafka_app.apache.config import KafkaNode
from kafka_app.apache.errors import ApacheKafkaError, KafkaStartFailed, PortBusy
from kafka_app.apache.jars import DEFAULT_VERSION, OFFLINE_HINT, check_version, classpath
from kafka_app.apache.node import NO_PERF_FILE, KafkaNodeProcess, java_options
from kafka_app.apache.progress import Waiting
from kafka_app.apache.storage import check_storage
from kafka_app.broker.settings import BrokerSettings
from kafka_app.resource import StartStop
from maven_jars import JarFetchError, find_java

__all__ = ["ApacheKafka", "PartitionReplicas", "SUPPORTED_BROKERS", "server_log_name"]

SUPPORTED_BROKERS = (1, 3)
# Measured here: 6-9 s for one node on 2 shared cores, JIT warm-up included; slow CI gets slack.
_START_TIMEOUT_SEC = 180.0


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _check_free(host: str, port: int) -> None:
    with socket.socket() as s:
        # As Kafka binds: SO_REUSEADDR, so connections of a previous run in TIME_WAIT do not count.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise PortBusy(
                    f"port {port} on {host} is in use; stop what uses it or give another --port"
                ) from None
            raise ApacheKafkaError(f"cannot listen on {host}:{port}: {error.strerror}") from None


def _check_java(java: Path) -> None:
    out = subprocess.run(
        [str(java), NO_PERF_FILE, "-version"], capture_output=True, text=True
    ).stderr
    match = re.search(r'version "(\d+)', out)
    if not match or int(match.group(1)) < 17:
        raise ApacheKafkaError(
            f"Kafka 4 needs Java 17 or newer, {java} is {match.group(1) if match else 'unknown'}; "
            f"install openjdk-17-jre-headless or set JAVA_HOME, or {OFFLINE_HINT}"
        )


@dataclass(frozen=True)
class PartitionReplicas:
    """Who holds one partition, as the cluster's metadata says: its leader (None while none
    leads), every replica, and the in-sync ones (those that may become leader cleanly)."""

    leader: int | None
    replicas: tuple[int, ...]
    isr: tuple[int, ...]


def server_log_name(node_id: int | str, brokers: int) -> str:
    """The name of a node's log in the log folder; the narration's "Watch" names it too."""
    return "kafka-server.log" if brokers == 1 else f"kafka-server-{node_id}.log"


class ApacheKafka(StartStop):
    """Apache Kafka on this host, `brokers` combined nodes, its data in `settings.data_dir`."""

    def __init__(
        self,
        settings: BrokerSettings | None = None,
        *,
        brokers: int = 1,
        version: str | None = None,
        progress: bool = True,
        start_timeout: float = _START_TIMEOUT_SEC,
    ) -> None:
        self.settings = settings or BrokerSettings()
        self.brokers, self.version = brokers, version or DEFAULT_VERSION
        self.progress, self.start_timeout = progress, start_timeout
        self.nodes: dict[int, KafkaNodeProcess] = {}
        self.cluster_id: str | None = None
        self._temporary: Path | None = None
        self.data_dir: Path | None = None

    # -- addresses ---------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self.nodes[1].spec.port

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(node.address for node in self.nodes.values())

    def log_file(self, node_id: int = 1) -> Path:
        return self.settings.log_dir / server_log_name(node_id, self.brokers)

    # -- life cycle --------------------------------------------------------------------------
    def start(self, node_id: int | None = None) -> None:
        """Start the whole cluster (idempotent), or start one stopped node again and wait for it."""
        if node_id is not None:
            node = self.nodes[node_id]
            node.start()
            self._wait_ready([node])
            return
        if self.nodes:
            return
        try:
            self._prepare()
            for node in self.nodes.values():
                node.start()
            self._wait_ready(list(self.nodes.values()))
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """SIGTERM every node at once, wait for each (SIGKILL after 30 s), remove a temporary folder."""
        nodes = list(self.nodes.values())
        with ThreadPoolExecutor(max_workers=max(1, len(nodes))) as pool:
            list(pool.map(lambda node: node.stop(), nodes))
        self.nodes = {}
        if self._temporary is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
            self._temporary = None

    def start_nodes(self, node_ids: Sequence[int]) -> None:
        """Start several stopped nodes at once and wait for all of them: when they are a majority
        of the quorum together, none answers before the others are up to elect a controller."""
        nodes = [self.nodes[node_id] for node_id in node_ids]
        for node in nodes:
            node.start()
        self._wait_ready(nodes)

    def restart_node(self, node_id: int, version: str | None = None) -> None:
        """Stop one node cleanly and start it again on its same data folder, on `version`'s jars
        when given (fetched once, before the stop): one step of a rolling upgrade or downgrade.
        Raises KafkaStartFailed when the node will not run on them (e.g. a metadata.version
        finalized beyond what that version knows); the node is then down."""
        node = self.nodes[node_id]
        version = version or node.version
        if version != node.version:
            problem = check_version(version)
            if problem:
                raise ApacheKafkaError(problem)
            try:
                cp = classpath(version, progress=self.progress)
            except JarFetchError as error:
                raise ApacheKafkaError(str(error)) from error
        else:
            cp = node.classpath
        node.stop()
        node.use(version, cp)
        node.start()
        self._wait_ready([node])

    @property
    def versions(self) -> dict[int, str]:
        """The Kafka version each node runs (or will run at its next start)."""
        return {node_id: node.version for node_id, node in self.nodes.items()}

    def stop_node(self, node_id: int) -> None:
        """Stop one node cleanly (SIGTERM): its partitions move to the others."""
        self.nodes[node_id].stop()

    def kill(self, node_id: int) -> None:
        """kill -9 one node: no controlled shutdown, its leaderships lost at once."""
        self.nodes[node_id].kill()

    def leader(self, topic: str, partition: int) -> int | None:
        """The node id leading `topic`'s partition now, asked of the live nodes; None while none
        leads or the cluster cannot say (e.g. right after a kill): callers poll until it can."""
        replicas = self.partition(topic, partition)
        return replicas.leader if replicas is not None else None

    def partition(self, topic: str, partition: int) -> PartitionReplicas | None:
        """Leader, replicas and ISR of `topic`'s partition, asked of the live nodes; None when
        the cluster cannot say now."""
        from kafka import KafkaAdminClient
        from kafka.errors import KafkaError

        try:
            admin = KafkaAdminClient(
                bootstrap_servers=self._live_servers(), request_timeout_ms=5_000
            )
            try:
                described = admin.describe_topics([topic])
            finally:
                admin.close()
        except KafkaError:
            return None  # the metadata still names the killed node and we asked it
        for item in described:
            for part in item.get("partitions", []):
                # kafka-python 3 names the fields as Kafka's JSON specs do; older ones did not.
                if part.get("partition_index", part.get("partition")) == partition:
                    leader = part.get("leader_id", part.get("leader"))
                    return PartitionReplicas(
                        leader=leader if leader is not None and leader >= 0 else None,
                        replicas=tuple(part.get("replica_nodes", part.get("replicas", ()))),
                        isr=tuple(part.get("isr_nodes", part.get("isr", ()))),
                    )
        return None

    # -- internals ---------------------------------------------------------------------------
    def _live_servers(self) -> str:
        return ",".join(node.address for node in self.nodes.values() if node.running)

    def _prepare(self) -> None:
        if self.brokers not in SUPPORTED_BROKERS:
            raise ApacheKafkaError(f"--brokers must be 1 or 3 (a KRaft quorum), got {self.brokers}")
        if self.brokers > 1 and self.settings.second_listener is not None:
            raise ApacheKafkaError(
                "a second listener works with one broker (every node would bind its port)"
            )
        problem = check_version(self.version)
        if problem:
            raise ApacheKafkaError(problem)
        java = find_java("Apache Kafka")
        _check_java(java)
        specs = self._specs()
        for spec in specs:
            _check_free(self.settings.host, spec.port)
        assert self.data_dir is not None
        # Checked before the fetch: a wrong folder costs no download.
        self.cluster_id, unformatted = check_storage(self.data_dir, specs)
        try:
            cp = classpath(self.version, progress=self.progress)
        except JarFetchError as error:
            raise ApacheKafkaError(str(error)) from error
        self.nodes = {
            spec.node_id: KafkaNodeProcess(
                self.settings,
                spec,
                specs,
                java=java,
                classpath=cp,
                log_file=self.log_file(spec.node_id),
                config_dir=self.settings.log_dir,
                version=self.version,
            )
            for spec in specs
        }
        if unformatted:
            self._format(unformatted, self.cluster_id, java, cp)

    def _specs(self) -> list[KafkaNode]:
        s = self.settings
        if s.data_dir is None:
            self._temporary = Path(tempfile.mkdtemp(prefix="kafka-apache-"))
        self.data_dir = s.data_dir or self._temporary
        assert self.data_dir is not None
        first = s.port or _free_port(s.host)
        ports = (
            [first]
            if self.brokers == 1
            else [first + i if s.port else _free_port(s.host) for i in range(self.brokers)]
        )
        folder = (
            (lambda n: self.data_dir)
            if self.brokers == 1
            else (lambda n: self.data_dir / f"node-{n}")
        )
        return [
            KafkaNode(
                node_id=i + 1,
                port=ports[i],
                controller_port=_free_port(s.host),
                log_dir=folder(i + 1),
            )
            for i in range(self.brokers)
        ]

    def _format(self, specs: Sequence[KafkaNode], cluster_id: str, java: Path, cp: str) -> None:
        """`kafka.tools.StorageTool format` for each node, in parallel (a JVM start each)."""
        running = []
        for spec in specs:
            node = self.nodes[spec.node_id]
            node.write_properties()
            spec.log_dir.mkdir(parents=True, exist_ok=True)
            argv = [
                str(java),
                "-Xmx256M",
                *java_options(node.log_file),
                "-cp",
                cp,
                "kafka.tools.StorageTool",
                "format",
                "-t",
                cluster_id,
                "-c",
                str(node.properties_file),
            ]
            running.append(
                (
                    spec,
                    subprocess.Popen(
                        argv,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                    ),
                )
            )
        for spec, process in running:
            out = process.communicate()[0].decode("utf-8", "replace").strip().splitlines()
            if process.returncode != 0:
                raise ApacheKafkaError(
                    f"formatting Kafka node {spec.node_id}'s storage in {spec.log_dir} "
                    f"failed: {out[-1] if out else 'no output'}"
                )

    def _wait_ready(self, nodes: Sequence[KafkaNodeProcess]) -> None:
        versions = sorted({node.version or self.version for node in nodes})
        what = f"Apache Kafka {', '.join(versions)}" + (
            f" ({len(nodes)} nodes)" if len(nodes) > 1 else ""
        )
        deadline = time.monotonic() + self.start_timeout
        waiting: list[KafkaNodeProcess] = list(nodes)
        with Waiting(f"{what} to answer", enabled=self.progress) as shown:
            while waiting:
                for node in list(waiting):
                    if not node.running:
                        raise KafkaStartFailed(node.failure())
                    if node.ready():
                        waiting.remove(node)
                if not waiting:
                    break
                if time.monotonic() > deadline:
                    raise KafkaStartFailed(
                        f"{what} did not answer within {self.start_timeout:.0f} s "
                        f"(log: {waiting[0].log_file})"
                    )
                shown.update(f"{len(nodes) - len(waiting)} of {len(nodes)} answer")
                time.sleep(0.2)
