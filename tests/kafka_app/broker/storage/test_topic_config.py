"""TopicConfig: Kafka's string configs parsed, validated, altered and described."""

from __future__ import annotations

import pytest

from kafka_app.broker.errors import InvalidConfig
from kafka_app.broker.storage.topic_config import KNOWN_KEYS, TopicConfig


def test_defaults_are_apache_kafkas() -> None:
    config = TopicConfig()
    assert config.retention_ms == 7 * 24 * 3600 * 1000
    assert config.retention_bytes == -1
    assert config.segment_bytes == 1024**3
    assert config.segment_ms == 7 * 24 * 3600 * 1000
    assert config.cleanup_policy == "delete"
    assert config.overrides == frozenset()


def test_from_strings_parses_and_records_overrides() -> None:
    config = TopicConfig.from_strings({"retention.ms": "60000", "segment.bytes": " 4096 "})
    assert (config.retention_ms, config.segment_bytes) == (60_000, 4096)
    assert config.overrides == {"retention.ms", "segment.bytes"}
    assert config.to_strings() == {"retention.ms": "60000", "segment.bytes": "4096"}


@pytest.mark.parametrize(
    "key, value, fragment",
    [
        ("segment.bytes", "-1", "segment.bytes"),
        ("segment.bytes", "13", "segment.bytes"),
        ("retention.ms", "-2", "retention.ms"),
        ("retention.ms", "ten", "retention.ms"),
        ("segment.ms", "0", "segment.ms"),
        ("cleanup.policy", "compact", "cleanup.policy"),
        ("retention.mss", "1", "retention.mss"),
    ],
)
def test_bad_keys_and_values_raise_invalid_config_naming_the_key(
    key: str, value: str, fragment: str
) -> None:
    with pytest.raises(InvalidConfig, match=fragment.replace(".", r"\.")) as raised:
        TopicConfig.from_strings({key: value})
    assert raised.value.error_code == 40


def test_unlimited_retention_is_accepted() -> None:
    config = TopicConfig.from_strings({"retention.ms": "-1", "retention.bytes": "-1"})
    assert (config.retention_ms, config.retention_bytes) == (-1, -1)


def test_harmless_kafka_keys_are_kept_and_echoed() -> None:
    config = TopicConfig.from_strings({"min.insync.replicas": "1", "retention.ms": "5"})
    assert config.to_strings() == {"min.insync.replicas": "1", "retention.ms": "5"}
    assert ("min.insync.replicas", "1", False) in config.describe()


def test_altered_sets_and_deletes_back_to_defaults() -> None:
    config = TopicConfig.from_strings({"retention.ms": "1000", "segment.ms": "500"})
    changed = config.altered({"retention.bytes": "2048"}, ["retention.ms"])
    assert changed.retention_ms == TopicConfig().retention_ms
    assert changed.retention_bytes == 2048
    assert changed.segment_ms == 500
    assert changed.overrides == {"retention.bytes", "segment.ms"}
    assert config.retention_ms == 1000  # the original is untouched


def test_altered_rejects_unknown_delete() -> None:
    with pytest.raises(InvalidConfig, match="no.such.key"):
        TopicConfig().altered({}, ["no.such.key"])


def test_describe_lists_every_known_key_with_its_default_flag() -> None:
    rows = TopicConfig.from_strings({"retention.bytes": "100"}).describe()
    by_name = {name: (value, is_default) for name, value, is_default in rows}
    assert set(KNOWN_KEYS) <= set(by_name)
    assert by_name["retention.bytes"] == ("100", False)
    assert by_name["retention.ms"] == ("604800000", True)
