"""What a broker offers and a client knows, without a JVM: the rule a client picks a version
by, what javap prints of a kafka-clients jar, the names Kafka logs for metadata.version levels,
and ApiVersions v3 on the wire (asked of the embedded broker, which speaks it too)."""

from __future__ import annotations

import pytest

from kafka_app.apache.versions import (
    FETCH,
    LIST_OFFSETS,
    METADATA,
    _highest_by_class,
    ask_api_versions,
    jar_version,
    metadata_version_names,
    spoken,
    unknown_level_refusal,
)
from kafka_app.broker import EmbeddedBroker


@pytest.mark.parametrize(
    ("client_max", "broker", "expected"),
    [
        (17, (4, 18), 17),  # kafka-clients 3.9 to Kafka 4.1.2 and 4.4.0: the client's highest
        (9, (1, 11), 9),  # ListOffsets: 4.4.0's new v11 is left unused by a 3.9 client
        (20, (4, 18), 18),  # a newer client talks down to the broker's highest
        (3, (4, 18), None),  # nothing in common: Kafka 4 dropped Fetch below v4
    ],
)
def test_a_client_speaks_the_highest_version_both_know(
    client_max: int, broker: tuple[int, int], expected: int | None
) -> None:
    assert spoken(client_max, broker) == expected


def test_javap_constants_are_read_per_class() -> None:
    out = (
        'Compiled from "FetchRequestData.java"\n'
        "public class org.apache.kafka.common.message.FetchRequestData implements org.apache.kafka.common.protocol.ApiMessage {\n"
        "  public static final short LOWEST_SUPPORTED_VERSION = 0;\n"
        "  public static final short HIGHEST_SUPPORTED_VERSION = 17;\n"
        "public class org.apache.kafka.common.message.MetadataRequestData implements org.apache.kafka.common.protocol.ApiMessage {\n"
        "  public static final short HIGHEST_SUPPORTED_VERSION = 12;\n"
    )
    assert _highest_by_class(out) == {
        "org.apache.kafka.common.message.FetchRequestData": 17,
        "org.apache.kafka.common.message.MetadataRequestData": 12,
    }


def test_metadata_version_names_come_from_the_nodes_log() -> None:
    log = (
        "[2026-11-26 01:47:52,641] INFO [ControllerServer id=1] Loaded new metadata "
        "FinalizedFeatures(metadataVersion=Optional[4.4-IV2], finalizedFeatures={group.version=1, "
        "transaction.version=2, eligible.leader.replicas.version=1, metadata.version=33}, "
        "finalizedFeaturesEpoch=420). (org.apache.kafka.metadata.publisher.FeaturesPublisher)\n"
        "... metadataVersion=Optional[4.1-IV1], finalizedFeatures={metadata.version=27}, ...\n"
    )
    assert metadata_version_names(log) == {33: "4.4-IV2", 27: "4.1-IV1"}
    assert metadata_version_names("nothing loaded yet") == {}


@pytest.mark.parametrize(
    "line",
    [
        "Caused by: java.lang.IllegalArgumentException: No MetadataVersion with feature level 33. "
        "Valid feature levels are from 7 to 29.",
        "java.lang.RuntimeException: Tried to apply FeatureLevelRecord FeatureLevelRecord(name='metadata.version', "
        "featureLevel=33), but this controller only supports versions 7-27",
    ],
)
def test_an_old_node_refusing_the_finalized_level_is_found_on_either_side(line: str) -> None:
    log = f"[...] ERROR Encountered fatal fault: ...\n{line}\n\tat org.apache.kafka...\n"
    found = unknown_level_refusal(log, 33)
    assert found is not None and found in line and "33" in found
    assert unknown_level_refusal(log, 30) is None


def test_jar_version_is_read_off_the_name(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert jar_version(tmp_path / "kafka-clients-3.9.2.jar") == "3.9.2"
    with pytest.raises(ValueError, match="not a kafka-clients jar"):
        jar_version(tmp_path / "spark-sql-kafka-0-10_2.13-4.2.0.jar")


def test_api_versions_v3_on_the_wire(embedded_broker: EmbeddedBroker) -> None:
    apis = ask_api_versions("127.0.0.1", embedded_broker.port)
    for key in (FETCH, LIST_OFFSETS, METADATA):
        low, high = apis.ranges[key]
        assert 0 <= low <= high
    assert apis.finalized.get("metadata.version") is None  # ours finalizes no feature


def test_no_broker_is_an_os_error(free_port: int) -> None:
    with pytest.raises(OSError):
        ask_api_versions("127.0.0.1", free_port, timeout=1.0)
