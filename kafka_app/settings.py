"""Settings of the producer console app (seed 001's KafkaApp), with the seed's defaults.

The command line builds one `ProducerAppSettings`; nothing else changes a setting.

Usage: `ProducerAppSettings(retention_sec=3600)` for seed scenario #1's "endless" retention.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

__all__ = ["DEFAULT_PORT", "ProducerAppSettings"]

DEFAULT_PORT = 9092


@dataclass(frozen=True)
class ProducerAppSettings:
    """Everything `python -m kafka_app` can be told, defaults as in seed 001.

    `bootstrap_servers` set means "use that Kafka"; then the embedded-broker settings
    (`host`, `port`, `data_dir`, `retention_check_sec`, `retention_initial_delay_sec`)
    do not apply, because retention checks are a broker-wide setting of that Kafka.
    """

    bootstrap_servers: str | None = None
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    # None: a temporary folder removed on exit, as the seed's embedded Kafka did.
    data_dir: Path | None = None
    topic: str = "Experience"
    partitions: int = 1
    # True: an existing topic with fewer partitions than `partitions` grows to that many
    # (what `kafka-topics --alter --partitions` does). Off by default: growing moves where a
    # key's next messages go. Kafka cannot shrink a topic, so more partitions are left alone.
    grow_partitions: bool = False
    # Copies of each partition a new topic gets; 3 on a three-broker Kafka (broker-failover).
    replication_factor: int = 1
    retention_sec: float = 15.0
    segment_sec: float = 1.0
    # None: leave segment.bytes at the broker's default (Kafka 4.1+ refuses values below 1 MiB).
    segment_bytes: int | None = None
    retention_check_sec: float = 15.0
    # The seed warns that Kafka waits before its first retention check; Kafka's own delay is 30 s.
    retention_initial_delay_sec: float = 30.0
    interval_sec: float = 1.0
    # "all": a send is acknowledged once every in-sync replica has it (what the seed's printed
    # offsets rely on); "1": once the leader alone has it (broker-failover shows what that loses).
    acks: str = "all"
    # How long one send may wait for its acknowledgement before the app gives up; a leader
    # election on three brokers that restart takes longer than the default.
    send_timeout_sec: float = 30.0
    # None: run until stopped; a number stops after that many messages (tests, scenarios).
    count: int | None = None
    # With `count`: send those messages as fast as Kafka takes them, each without waiting for
    # the one before to be acknowledged (the client batches them), as a backlog arrives while
    # a consumer is down (the backlog scenario). Each line is still printed once acknowledged.
    burst: bool = False
    # None: continue after the highest value in the topic. A number: start there, as a producer
    # that keeps its own sequence does after Kafka lost messages it had acknowledged
    # (broker-failover); the topic's highest value would then send lost values again.
    first_value: int | None = None
    # A user's own records (JSON lines: key, value, event_time; kafka_app/user_records.py) sent
    # in order at the interval instead of the counter, then the producer stops. None: the counter.
    records: Path | None = None
    log_dir: Path = Path("log")

    def to_argv(self) -> list[str]:
        """This object as `python -m kafka_app`'s command line: the fields that differ from
        the defaults, each as `--field-name value` (the CLI reads it back into an equal object;
        a test holds them to that), so scenarios and the demo never type a flag. A switch
        (a bool, off by default) is its flag alone."""
        default = ProducerAppSettings()
        changed = ((f.name, getattr(self, f.name)) for f in fields(self))
        return [
            part
            for name, value in changed
            if value != getattr(default, name)
            for part in (
                (f"--{name.replace('_', '-')}",)
                if isinstance(value, bool)
                else (f"--{name.replace('_', '-')}", str(value))
            )
        ]

    @property
    def embedded(self) -> bool:
        """True when the app runs its own broker instead of using an existing Kafka."""
        return self.bootstrap_servers is None

    @property
    def retention_ms(self) -> int:
        return round(self.retention_sec * 1000)

    @property
    def segment_ms(self) -> int:
        return round(self.segment_sec * 1000)

    def topic_configs(self) -> dict[str, str]:
        """The topic-level Kafka configs this app creates or re-applies on its topic."""
        configs = {
            "cleanup.policy": "delete",
            "retention.ms": str(self.retention_ms),
            "segment.ms": str(self.segment_ms),
        }
        if self.segment_bytes is not None:
            configs["segment.bytes"] = str(self.segment_bytes)
        return configs
