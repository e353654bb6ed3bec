"""Errors of the producer console app; the command line turns each into one clear line.

The embedded broker has its own hierarchy in `kafka_app.broker.errors` (Kafka error codes);
these are the app's: what went wrong for the user and what to do about it.

Usage: `raise KafkaUnreachable("127.0.0.1:9092", "start Kafka or drop --bootstrap-servers")`.
"""

from __future__ import annotations

__all__ = [
    "BadCounterValue",
    "KafkaUnreachable",
    "ProducerAppError",
    "SendFailed",
    "TopicSetupFailed",
    "TopicUnreadable",
]


class ProducerAppError(Exception):
    """Base of the app's errors; `str(error)` is the line the user sees."""


class KafkaUnreachable(ProducerAppError):
    """No Kafka answered at the bootstrap address in time."""

    def __init__(self, bootstrap_servers: str, hint: str) -> None:
        super().__init__(f"no Kafka answers at {bootstrap_servers}: {hint}")
        self.bootstrap_servers = bootstrap_servers


class TopicSetupFailed(ProducerAppError):
    """The topic could not be created or given the retention settings."""


class TopicUnreadable(ProducerAppError):
    """The topic's last records could not be read, so we do not know where the counter stands."""


class BadCounterValue(ProducerAppError):
    """The topic holds a record whose value is not a decimal counter, so we cannot continue it."""

    def __init__(self, topic: str, partition: int, offset: int, value: bytes | None) -> None:
        super().__init__(
            f"topic {topic!r} partition {partition} offset {offset} holds {value!r}, not a counter; "
            "use another --topic or an empty Kafka"
        )


class SendFailed(ProducerAppError):
    """Kafka did not acknowledge a message in time."""
