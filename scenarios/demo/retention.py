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

from scenarios.demo.errors import RetentionChangeError
from scenarios.engine.observers.kafka_probe import KafkaProbe
from scenarios.errors import StepFailed

__all__ = ["RETENTION_CHOICES", "next_retention", "set_topic_retention"]

RETENTION_CHOICES = (
    15,
    3600,
)  # seed 001: scenario #2 (short) and scenario #1 ("one hour means forever")


def next_retention(current_sec: int, choices: Sequence[int] = RETENTION_CHOICES) -> int:
    """The choice after the current one, wrapping round; the first if current is not a choice."""
    if current_sec in choices:
        return choices[(list(choices).index(current_sec) + 1) % len(choices)]
    return choices[0]


def set_topic_retention(
    bootstrap_servers: str, topic: str, retention_sec: int, timeout_sec: float = 10.0
) -> None:
    """Set `retention.ms` on the topic; raises RetentionChangeError saying why if it fails."""
    try:
        KafkaProbe(bootstrap_servers, topic, timeout_sec).set_retention(retention_sec)
    except StepFailed as error:
        raise RetentionChangeError(str(error)) from error
