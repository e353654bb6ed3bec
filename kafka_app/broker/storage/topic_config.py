"""Per-topic configuration, parsed from and written back to Kafka's string form ("retention.ms").

CreateTopics, DescribeConfigs and IncrementalAlterConfigs all speak in strings; this module is
the one place that turns them into typed, validated settings and back again.

Usage: `TopicConfig.from_strings({"retention.ms": "60000"}).retention_ms  # -> 60000`
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace

from kafka_app.broker.errors import InvalidConfig
from kafka_app.broker.storage.stored_configs import STORED_KEYS, parse_stored

__all__ = ["TopicConfig", "KNOWN_KEYS", "PASSTHROUGH_KEYS", "CREATE_TIME", "LOG_APPEND_TIME"]

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"


def _long(minimum: int) -> Callable[[str, str], int]:
    def parse(key: str, text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise InvalidConfig(f"config {key}={text!r} is not an integer") from None
        if value < minimum:
            raise InvalidConfig(f"config {key}={value} is below its minimum {minimum}")
        return value

    return parse


def _cleanup_policy(key: str, text: str) -> str:
    value = text.strip()
    # Compaction is not implemented; accepting it would silently keep deleting instead.
    if value != "delete":
        raise InvalidConfig(
            f"config {key}={text!r} is not supported: this broker only does 'delete'"
        )
    return value


def _timestamp_type(key: str, text: str) -> str:
    value = text.strip()
    if value not in (CREATE_TIME, LOG_APPEND_TIME):
        raise InvalidConfig(f"config {key}={text!r} must be {CREATE_TIME} or {LOG_APPEND_TIME}")
    return value


# Kafka name -> (dataclass field, parser). Minimums follow Apache Kafka 3.x, except segment.bytes:
# Kafka 4.1+ refuses values below 1 MiB (4.0 accepted them), but tiny segments make retention
# visible in a demo.
_PARSERS: dict[str, tuple[str, Callable[[str, str], object]]] = {
    "cleanup.policy": ("cleanup_policy", _cleanup_policy),
    "retention.ms": ("retention_ms", _long(-1)),
    "retention.bytes": ("retention_bytes", _long(-1)),
    "segment.ms": ("segment_ms", _long(1)),
    "segment.bytes": ("segment_bytes", _long(14)),
    "max.message.bytes": ("max_message_bytes", _long(0)),
    "file.delete.delay.ms": ("file_delete_delay_ms", _long(0)),
    "message.timestamp.type": ("message_timestamp_type", _timestamp_type),
    "message.timestamp.before.max.ms": ("message_timestamp_before_max_ms", _long(0)),
    "message.timestamp.after.max.ms": ("message_timestamp_after_max_ms", _long(0)),
}
KNOWN_KEYS: tuple[str, ...] = tuple(_PARSERS)

# Kafka's other topic configs are stored and described but not acted on (stored_configs.py).
PASSTHROUGH_KEYS: frozenset[str] = STORED_KEYS


@dataclass(frozen=True)
class TopicConfig:
    """A topic's settings with Apache Kafka's defaults; `overrides` names those set explicitly."""

    cleanup_policy: str = "delete"
    retention_ms: int = 604_800_000
    retention_bytes: int = -1
    segment_ms: int = 604_800_000
    segment_bytes: int = 1_073_741_824
    max_message_bytes: int = 1_048_588
    file_delete_delay_ms: int = 60_000
    message_timestamp_type: str = CREATE_TIME
    # Kafka 4's defaults (KIP-937, KIP-1030): any age is accepted, at most one hour in the future.
    message_timestamp_before_max_ms: int = 2**63 - 1
    message_timestamp_after_max_ms: int = 3_600_000
    overrides: frozenset[str] = frozenset()
    # Additive to the interface: passthrough keys kept verbatim, as sorted (name, value) pairs.
    extra: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def from_strings(cls, configs: Mapping[str, str]) -> TopicConfig:
        """Parse Kafka-named string configs; raises InvalidConfig naming the offending key."""
        return cls().altered(configs, ())

    def altered(self, sets: Mapping[str, str], deletes: Iterable[str]) -> TopicConfig:
        """A copy with `sets` applied and `deletes` reset to defaults (IncrementalAlterConfigs)."""
        defaults = TopicConfig()
        changes: dict[str, object] = {}
        overrides = set(self.overrides)
        extra = dict(self.extra)
        for key in deletes:
            if key in _PARSERS:
                attr = _PARSERS[key][0]
                changes[attr] = getattr(defaults, attr)
                overrides.discard(key)
            elif key in STORED_KEYS:
                extra.pop(key, None)
            else:
                raise InvalidConfig(f"unknown topic config {key!r}")
        for key, text in sets.items():
            if text is None:
                raise InvalidConfig(f"config {key} has no value")
            if key in _PARSERS:
                attr, parse = _PARSERS[key]
                changes[attr] = parse(key, str(text))
                overrides.add(key)
            elif key in STORED_KEYS:
                extra[key] = parse_stored(key, str(text))
            else:
                raise InvalidConfig(
                    f"unknown topic config {key!r}: not a topic config of Apache Kafka 4.1"
                )
        return replace(
            self, **changes, overrides=frozenset(overrides), extra=tuple(sorted(extra.items()))
        )

    def value_string(self, key: str) -> str:
        """The current value of a known key in Kafka's string form."""
        if key not in _PARSERS:
            raise InvalidConfig(f"unknown topic config {key!r}")
        return str(getattr(self, _PARSERS[key][0]))

    def describe(self) -> list[tuple[str, str, bool]]:
        """(name, value, is_default) for every known key, then the stored passthrough keys."""
        rows = [(key, self.value_string(key), key not in self.overrides) for key in KNOWN_KEYS]
        rows.extend((key, value, False) for key, value in self.extra)
        return rows

    def to_strings(self) -> dict[str, str]:
        """Only the explicitly set keys, for persistence and the CreateTopics echo."""
        result = {key: self.value_string(key) for key in KNOWN_KEYS if key in self.overrides}
        result.update(self.extra)
        return result


# Guard against the parser table and the dataclass drifting apart.
assert {attr for attr, _ in _PARSERS.values()} <= {f.name for f in fields(TopicConfig)}
