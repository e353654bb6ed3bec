"""Changing a topic's retention while everything runs, as a Kafka admin would.

Seed 001's two scenarios differ only in retention (15 s against one hour). The demo flips
between them live with IncrementalAlterConfigs on `retention.ms`, so the same running setup
shows both: with 15 s a Spark app kept down too long finds its offsets aged out.

Usage:
    set_topic_retention("127.0.0.1:9092", "Experience", 3600)
    next_retention(15, (15, 3600))  # -> 3600
"""

from __future__ import annotations

from collections.abc import Sequence

from kafka import KafkaAdminClient
from kafka.admin import AlterConfigOp, ConfigResource, ConfigResourceType
from kafka.errors import KafkaError

from scenarios.demo.errors import RetentionChangeError

__all__ = ["RETENTION_CHOICES", "next_retention", "set_topic_retention"]

RETENTION_CHOICES = (15, 3600)  # seed 001: scenario #2 (short) and scenario #1 ("one hour means forever")


def next_retention(current_sec: int, choices: Sequence[int] = RETENTION_CHOICES) -> int:
    """The choice after the current one, wrapping round; the first if current is not a choice."""
    if current_sec in choices:
        return choices[(list(choices).index(current_sec) + 1) % len(choices)]
    return choices[0]


def set_topic_retention(bootstrap_servers: str, topic: str, retention_sec: int,
                        timeout_sec: float = 10.0) -> None:
    """Set `retention.ms` on the topic; raises RetentionChangeError saying why if it fails."""
    resource = ConfigResource(ConfigResourceType.TOPIC, topic,
                              configs={"retention.ms": (AlterConfigOp.SET, str(retention_sec * 1000))})
    try:
        admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, client_id="checkpoint-demo",
                                 request_timeout_ms=int(timeout_sec * 1000))
    except KafkaError as error:
        raise RetentionChangeError(f"cannot reach Kafka at {bootstrap_servers}: {error}") from error
    try:
        # incremental=True: change this one key and leave the topic's other settings alone.
        results = admin.alter_configs([resource], raise_on_unknown=False, incremental=True)
    except KafkaError as error:
        raise RetentionChangeError(f"changing retention.ms of {topic} failed: {error}") from error
    finally:
        admin.close()
    outcome = results.get("topic", {}).get(topic)
    if outcome != "OK":
        raise RetentionChangeError(f"the broker refused retention.ms for {topic}: {outcome}")
