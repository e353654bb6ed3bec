"""Changing a topic's retention while everything runs, as a Kafka admin would.

Seed 001's two scenarios differ only in retention (15 s against one hour). The demo starts on
the hour, as the seed's first experiment (crash, restart, exactly once) ran: a room may talk for
minutes while the app is down, and the restart must still find its offsets. `t` flips to the
seed's 15 s for the retention race, and back, live with IncrementalAlterConfigs on
`retention.ms`: with 15 s a Spark app kept down too long finds its offsets aged out.

Usage:
    set_topic_retention("127.0.0.1:9092", "Experience", 3600)
    next_retention(15, (15, 3600))  # -> 3600
"""

from __future__ import annotations

from collections.abc import Sequence

from scenarios.demo.errors import RetentionChangeError
from scenarios.engine.observers.kafka_probe import KafkaProbe
from scenarios.errors import StepFailed

__all__ = [
    "RACE_RETENTION_SEC",
    "RETENTION_CHOICES",
    "START_RETENTION_SEC",
    "next_retention",
    "set_topic_retention",
]

# Seed 001's scenario #1 ("one hour means forever"): what the demo starts with, so a discussion
# between a crash and `r` cannot turn the restart into KAFKA_DATA_LOSS.
START_RETENTION_SEC = 3600
# Seed 001's scenario #2: 15 s, the retention race that `t` switches to.
RACE_RETENTION_SEC = 15
RETENTION_CHOICES = (RACE_RETENTION_SEC, START_RETENTION_SEC)


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
