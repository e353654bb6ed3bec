"""One Apache Kafka node (combined broker and controller) as a child JVM.

Its `server.properties` sits in the log folder as `kafka-server-<id>.properties`, its log
(log4j2 and the JVM's own output) in `<log dir>/kafka-server.log` (`kafka-server-<id>.log` in a
cluster). `start` returns at once; `ready()` asks the broker ApiVersions; `failure()` reads the
log of a JVM that died while starting and says why in one line.

Usage:
    node = KafkaNodeProcess(settings, spec, voters, classpath=cp, log_file=Path("log/kafka-server.log"))
    node.start(); ...; node.stop()
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from kafka_app.apache.config import KafkaNode, advertised_host, render, server_properties
from kafka_app.apache.jars import LOG4J2_CONFIG
from kafka_app.apache.readiness import answers_api_versions
from kafka_app.broker.settings import BrokerSettings
from maven_jars.jvm import NO_PERF_FILE, Jvm

__all__ = ["KafkaNodeProcess", "java_options"]

# Measured on this 2-core machine: a node idles at ~400 MB RSS with a 512 MB heap ceiling;
# Kafka's own script asks for 1 GB, more than a playground's few topics need.
_HEAP = "-Xmx512M"
_LOGGED_VERSION = re.compile(r"Kafka version: (\S+)")
_BIND_FAILED = re.compile(r"Socket server failed to bind to (\S+?): Address already in use")


def java_options(log_file: Path) -> list[str]:
    """JVM options of every Kafka JVM we start (the broker and the storage tool)."""
    return [
        f"-Dlog4j2.configurationFile={LOG4J2_CONFIG}",
        f"-Dcheckpoint.kafka.log.file={log_file}",
        "-Djava.awt.headless=true",
        "-XX:+ExitOnOutOfMemoryError",
        NO_PERF_FILE,
    ]


class KafkaNodeProcess:
    """A Kafka node we start, stop, kill and start again (the failover scenario does all four)."""

    def __init__(
        self,
        settings: BrokerSettings,
        spec: KafkaNode,
        voters: Sequence[KafkaNode],
        *,
        java: Path,
        classpath: str,
        log_file: Path,
        config_dir: Path,
        version: str = "",
    ) -> None:
        self.settings, self.spec, self.voters = settings, spec, list(voters)
        self.java, self.classpath, self.log_file = java, classpath, log_file.resolve()
        # The Kafka version of `classpath`; a rolling upgrade swaps both while the node is down.
        self.version = version
        # Absolute: the command line then says which folder a JVM serves (tests find theirs by it).
        self.properties_file = (config_dir / f"kafka-server-{spec.node_id}.properties").resolve()
        self.jvm: Jvm | None = None
        self._log_offset = 0

    @property
    def node_id(self) -> int:
        return self.spec.node_id

    @property
    def address(self) -> str:
        return f"{advertised_host(self.settings.host)}:{self.spec.port}"

    @property
    def running(self) -> bool:
        return self.jvm is not None and self.jvm.running

    def start(self) -> None:
        """Write the properties and start `kafka.Kafka`; idempotent while it runs."""
        if self.running:
            return
        self.write_properties()
        self._log_offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        argv = [
            str(self.java),
            _HEAP,
            *java_options(self.log_file),
            "-cp",
            self.classpath,
            "kafka.Kafka",
            str(self.properties_file),
        ]
        self.jvm = Jvm.start(argv, output=self.log_file)

    def write_properties(self) -> None:
        """`kafka-server-<id>.properties` for this node (the storage tool reads it too)."""
        self.properties_file.parent.mkdir(parents=True, exist_ok=True)
        self.properties_file.write_text(
            render(server_properties(self.settings, self.spec, self.voters)), encoding="utf-8"
        )

    def ready(self) -> bool:
        return self.running and answers_api_versions(
            advertised_host(self.settings.host), self.spec.port
        )

    def stop(self, timeout: float = 30.0) -> None:
        if self.jvm is not None:
            self.jvm.stop(timeout)

    def kill(self) -> None:
        if self.jvm is not None:
            self.jvm.kill()

    def use(self, version: str, classpath: str) -> None:
        """Run `version`'s jars from the next start on, on the same data folder (the node must be
        stopped: a JVM keeps the jars it started with)."""
        if self.running:
            raise RuntimeError(
                f"Kafka node {self.node_id} is running; stop it before changing its jars"
            )
        self.version, self.classpath = version, classpath

    def logged_version(self) -> str | None:
        """The version this JVM says it is, in its log since `start` (Kafka's `Kafka version: X`
        line), or None before it says so."""
        found = _LOGGED_VERSION.findall(self._new_log())
        return found[-1] if found else None

    def failure(self, when: str = "while starting") -> str:
        """Why the JVM ended (`when`: while starting, or after it started: a halt such as a failed
        last log dir), in one line, from what it logged since `start`."""
        code = self.jvm.returncode if self.jvm else None
        text = self._new_log()
        bound = _BIND_FAILED.search(text)
        if bound:
            return (
                f"Kafka node {self.node_id} cannot listen on {bound.group(1)}: the port is in use; "
                f"stop what uses it or give another --port"
            )
        return (
            f"Kafka node {self.node_id} exited with code {code} {when}: {_first_error(text)} "
            f"(log: {self.log_file})"
        )

    def _new_log(self) -> str:
        try:
            with self.log_file.open("rb") as log:
                log.seek(self._log_offset)
                return log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""


def _first_error(text: str) -> str:
    lines = text.splitlines()
    for marker in (" ERROR ", " FATAL ", "Error:", "Exception"):
        for line in lines:
            if marker in line:
                return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "it wrote nothing"
