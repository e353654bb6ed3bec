"""Kafka 4.1's other topic configs: accepted, checked as Kafka checks them, stored and described.

The broker acts on a few topic configs (topic_config.py). Every other name in Apache Kafka 4.1's
topic config list (`LogConfig` and `TopicConfig.java`) is about replication, compaction, flushing,
indexes or tiered storage, which one node without compaction has no use for; a tool or workshop
that sets one must not fail for it. Values get Kafka's type and range check, so a typo is still
INVALID_CONFIG. A value that would promise something this broker cannot do (tiered storage, a
broker-side recompression) is refused with a message that says so, instead of being ignored.

Usage: `parse_stored("delete.retention.ms", "86400000")  # -> "86400000"`
"""

from __future__ import annotations

from collections.abc import Callable

from kafka_app.broker.errors import InvalidConfig

__all__ = ["STORED_KEYS", "parse_stored"]

_BROKER_COMPRESSIONS = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")


def _number(
    minimum: float | None = None, maximum: float | None = None, whole: bool = True
) -> Callable[[str, str], str]:
    def parse(key: str, text: str) -> str:
        try:
            value: float = int(text.strip()) if whole else float(text.strip())
        except ValueError:
            kind = "an integer" if whole else "a number"
            raise InvalidConfig(f"config {key}={text!r} is not {kind}") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise InvalidConfig(
                f"config {key}={text.strip()} is outside "
                f"[{minimum if minimum is not None else ''}, "
                f"{maximum if maximum is not None else ''}]"
            )
        return text.strip()

    return parse


def _boolean(key: str, text: str) -> str:
    value = text.strip().lower()
    if value not in ("true", "false"):
        raise InvalidConfig(f"config {key}={text!r} must be true or false")
    return value


def _text(key: str, text: str) -> str:
    return text.strip()


def _compression(key: str, text: str) -> str:
    value = text.strip()
    if value not in _BROKER_COMPRESSIONS:
        raise InvalidConfig(
            f"config {key}={text!r} is not one of {', '.join(_BROKER_COMPRESSIONS)}"
        )
    # Kafka recompresses every batch to the topic's codec; this broker stores batches as sent.
    if value != "producer":
        raise InvalidConfig(
            f"config {key}={value} is not supported: this broker stores batches "
            f"as the producer compressed them (compression.type=producer); set "
            f"the codec on the producer instead"
        )
    return value


def _remote_storage(key: str, text: str) -> str:
    value = _boolean(key, text)
    if value == "true":
        raise InvalidConfig(
            f"config {key}=true is not supported: this broker has no tiered storage"
        )
    return value


_PARSERS: dict[str, Callable[[str, str], str]] = {
    "segment.jitter.ms": _number(0),
    "segment.index.bytes": _number(4),
    "flush.messages": _number(1),
    "flush.ms": _number(0),
    "index.interval.bytes": _number(0),
    "delete.retention.ms": _number(0),
    "min.compaction.lag.ms": _number(0),
    "max.compaction.lag.ms": _number(1),
    "min.cleanable.dirty.ratio": _number(0, 1, whole=False),
    "unclean.leader.election.enable": _boolean,
    "min.insync.replicas": _number(1),
    "compression.type": _compression,
    "compression.gzip.level": _number(-1, 9),
    "compression.lz4.level": _number(1, 17),
    "compression.zstd.level": _number(-131072, 22),
    "preallocate": _boolean,
    "leader.replication.throttled.replicas": _text,
    "follower.replication.throttled.replicas": _text,
    "message.downconversion.enable": _boolean,
    "remote.storage.enable": _remote_storage,
    "local.retention.ms": _number(-2),
    "local.retention.bytes": _number(-2),
    "remote.log.copy.disable": _boolean,
    "remote.log.delete.on.disable": _boolean,
}
STORED_KEYS: frozenset[str] = frozenset(_PARSERS)


def parse_stored(key: str, text: str) -> str:
    """The value to store for a Kafka topic config this broker keeps but does not act on.

    Raises InvalidConfig for a value Kafka would refuse, or one this broker cannot honour.
    """
    return _PARSERS[key](key, text)
