"""Settings of the embedded broker: one frozen dataclass, built by the CLI, by tests and by scenarios.

Usage: `BrokerSettings(port=19092, data_dir=Path("kafka-data"), retention_check_sec=15.0)`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

__all__ = ["BrokerSettings"]


@dataclass(frozen=True)
class BrokerSettings:
    """Everything the broker can be told; the defaults are the README's (and Kafka's where it has one).

    `data_dir=None` means a temporary folder removed when the broker stops, as in the seed.
    `port=0` asks the OS for a free port (read it back from `EmbeddedBroker.port`).
    """

    host: str = "127.0.0.1"
    port: int = 9092
    data_dir: Path | None = None
    # The seed checks retention every 15 s; Kafka's own default interval is 5 minutes.
    retention_check_sec: float = 15.0
    # Kafka waits 30 s before its first retention pass; the seed warns readers about that delay.
    retention_initial_delay_sec: float = 30.0
    # Kafka's socket.request.max.bytes: a larger length prefix is refused before the body is read.
    max_frame_bytes: int = 104_857_600
    # Kafka's connections.max.idle.ms (10 minutes): a connection that sends no complete request
    # for this long is closed, which also ends a frame that was never finished.
    connections_max_idle_ms: int = 600_000
    # Kafka's group.initial.rebalance.delay.ms (3 s): a new consumer group waits this long for
    # more members before its first assignment. 0 assigns at once, as the seed's demos expect.
    group_initial_rebalance_delay_ms: int = 3_000
    # Kafka's max.connections, unlimited in Kafka. Each connection is a file descriptor; at the
    # limit the connection idle the longest is closed to make room (see connection_limit.py).
    max_connections: int = 1000
    # Partitions the whole broker may hold; each keeps a segment file open. Kafka has no such
    # setting (KIP-578 proposed max.broker.partitions) and recommends at most 4000 per broker.
    max_partitions: int = 4000
    auto_create_topics: bool = False
    default_partitions: int = 1
    # A second listener, as Kafka's `listeners` + `advertised.listeners`: `PORT=HOST:PORT`.
    # Clients that connect on PORT are told to come back at HOST:PORT (e.g. a proxy in front
    # of it), while clients of `port` keep talking to the broker directly.
    second_listener: str | None = None
    # Where the CLI writes kafka.log; in-process users (EmbeddedBroker) set up logging themselves.
    log_dir: Path = Path("log")

    def to_argv(self) -> list[str]:
        """This object as `python -m kafka_app broker`'s options: the fields that differ from
        the defaults (the CLI reads them back into an equal object; a test holds them to that)."""
        default = BrokerSettings()
        argv: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name):
                continue
            flag = f"--{f.name.replace('_', '-')}"
            argv += [flag] if value is True else [flag, str(value)]
        return argv

    def second_listener_address(self) -> tuple[int, str, int] | None:
        """(listening port, advertised host, advertised port) of the second listener."""
        if self.second_listener is None:
            return None
        port, _, advertised = self.second_listener.partition("=")
        host, _, advertised_port = advertised.rpartition(":")
        if not (port.isdigit() and host and advertised_port.isdigit()):
            raise ValueError(
                f"second listener must be PORT=HOST:PORT, got {self.second_listener!r}"
            )
        return int(port), host, int(advertised_port)

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port {self.port} is not between 0 and 65535")
        if self.retention_check_sec <= 0:
            raise ValueError("retention_check_sec must be positive")
        if self.retention_initial_delay_sec < 0:
            raise ValueError("retention_initial_delay_sec must not be negative")
        if self.default_partitions < 1:
            raise ValueError("default_partitions must be at least 1")
        if self.connections_max_idle_ms <= 0:
            raise ValueError("connections_max_idle_ms must be positive")
        if self.second_listener is not None:
            self.second_listener_address()  # raises ValueError naming what is wrong
        if self.group_initial_rebalance_delay_ms < 0:
            raise ValueError("group_initial_rebalance_delay_ms must not be negative")
        if self.max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        if self.max_partitions < 1:
            raise ValueError("max_partitions must be at least 1")
        if self.max_frame_bytes < 64:
            raise ValueError("max_frame_bytes is too small to hold any Kafka request")
