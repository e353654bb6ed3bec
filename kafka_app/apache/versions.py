"""Which protocol versions a Kafka broker offers, which a client knows, and the feature levels.

Every Kafka client opens a connection with ApiVersions: the broker answers, per API, the lowest
and highest version it serves, and (v3) the features it supports and the levels the cluster
has finalized, `metadata.version` among them. The client then speaks, per API, the highest
version both know. `ask_api_versions` asks as a client does; `client_maxima` reads what a
kafka-clients jar knows (its message classes' `HIGHEST_SUPPORTED_VERSION`, with `javap`);
`spoken` is the pure rule in between. `update_feature` is what
`kafka-features upgrade/downgrade` sends (UpdateFeatures, forwarded to the active controller).

Usage:
    apis = ask_api_versions("127.0.0.1", 19092)
    apis.finalized["metadata.version"], apis.ranges[FETCH]        # e.g. 27, (4, 17)
    spoken(client_maxima(jar)[FETCH], apis.ranges[FETCH])         # the Fetch version used
    update_feature("127.0.0.1", 19092, "metadata.version", 29)    # None, or Kafka's refusal
"""

from __future__ import annotations

import itertools
import re
import socket
import struct
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kafka_app.apache.node import NO_PERF_FILE
from kafka_app.apache.readiness import read_exactly

__all__ = [
    "API_NAMES",
    "FETCH",
    "LIST_OFFSETS",
    "METADATA",
    "BrokerApis",
    "FeatureRefused",
    "ask_api_versions",
    "client_maxima",
    "jar_version",
    "metadata_version_names",
    "spoken",
    "unknown_level_refusal",
    "update_feature",
]

FETCH, LIST_OFFSETS, METADATA = 1, 2, 3
# The APIs a Kafka source's consumer lives on, with the class naming each in kafka-clients.
API_NAMES = {FETCH: "Fetch", LIST_OFFSETS: "ListOffsets", METADATA: "Metadata"}
_MESSAGE_CLASS = "org.apache.kafka.common.message.{}RequestData"
_CLIENT = ("checkpoint-experience-probe", "1.0")
_MAX_FRAME = 1 << 20
_correlation = itertools.count(1)


class FeatureRefused(Exception):
    """Kafka refused an UpdateFeatures request; the message is Kafka's own."""


@dataclass(frozen=True)
class BrokerApis:
    """One broker's ApiVersions answer: version ranges per API key, the features this broker's
    software supports (name -> (min, max)), and the cluster's finalized levels (name -> level)."""

    ranges: dict[int, tuple[int, int]]
    supported: dict[str, tuple[int, int]] = field(default_factory=dict)
    finalized: dict[str, int] = field(default_factory=dict)


def spoken(client_max: int, broker: tuple[int, int]) -> int | None:
    """The version a client that knows up to `client_max` speaks to a broker offering `broker`
    (min, max): the highest both know; None when they share none."""
    low, high = broker
    chosen = min(client_max, high)
    return chosen if chosen >= low else None


# -- on the wire ---------------------------------------------------------------------------------
def _exchange(
    host: str,
    port: int,
    request,
    response_class,
    version: int,  # type: ignore[no-untyped-def]
    timeout: float,
):
    request.with_header(correlation_id=next(_correlation), client_id=_CLIENT[0])
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(request.encode(version=version, header=True, framed=True))
        size = struct.unpack(">i", read_exactly(sock, 4))[0]
        if not 0 < size <= _MAX_FRAME:
            raise ConnectionError(f"a frame of {size} bytes is not a Kafka answer")
        return response_class.decode(read_exactly(sock, size), version=version, header=True)


def ask_api_versions(host: str, port: int, timeout: float = 5.0) -> BrokerApis:
    """ApiVersions v3, as a current client opens; raises OSError/ConnectionError when the broker
    does not answer, and ConnectionError with Kafka's error code when it refuses."""
    from kafka.protocol.metadata.api_versions import ApiVersionsRequest, ApiVersionsResponse

    request = ApiVersionsRequest(
        client_software_name=_CLIENT[0], client_software_version=_CLIENT[1], version=3
    )
    answer = _exchange(host, port, request, ApiVersionsResponse, 3, timeout)
    if answer.error_code != 0:
        raise ConnectionError(f"ApiVersions answered error {answer.error_code}")
    return BrokerApis(
        ranges={a.api_key: (a.min_version, a.max_version) for a in answer.api_keys},
        supported={f.name: (f.min_version, f.max_version) for f in answer.supported_features or ()},
        finalized={f.name: f.max_version_level for f in answer.finalized_features or ()},
    )


def update_feature(
    host: str,
    port: int,
    feature: str,
    level: int,
    *,
    downgrade: bool = False,
    timeout: float = 30.0,
) -> None:
    """Finalize `feature` at `level` cluster-wide (`kafka-features upgrade --feature f=level`;
    with `downgrade`, a safe downgrade). Raises FeatureRefused with Kafka's reason."""
    from kafka.protocol.admin.cluster import UpdateFeaturesRequest, UpdateFeaturesResponse

    version = 1  # upgrade_type (1 upgrade, 2 safe downgrade) instead of allow_downgrade
    update = UpdateFeaturesRequest.FeatureUpdateKey(
        feature=feature,
        max_version_level=level,
        upgrade_type=2 if downgrade else 1,
        version=version,
    )
    request = UpdateFeaturesRequest(
        timeout_ms=round(timeout * 1000),
        feature_updates=[update],
        validate_only=False,
        version=version,
    )
    answer = _exchange(host, port, request, UpdateFeaturesResponse, version, timeout + 5)
    problems = [(answer.error_code, answer.error_message)] + [
        (r.error_code, r.error_message) for r in answer.results or ()
    ]
    for code, message in problems:
        if code != 0:
            raise FeatureRefused(f"{message or 'no message'} (error {code})")


# -- what a client knows -------------------------------------------------------------------------
def client_maxima(
    jar: Path, apis: Iterable[int] = tuple(API_NAMES), *, javap: str = "javap"
) -> dict[int, int]:
    """The highest version of each API a kafka-clients jar knows, read off its message classes
    (`javap -constants`); one JVM for all of them."""
    apis = list(apis)
    classes = [_MESSAGE_CLASS.format(API_NAMES[key]) for key in apis]
    out = subprocess.run(
        [javap, f"-J{NO_PERF_FILE}", "-cp", str(jar), "-constants", *classes],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = _highest_by_class(out.stdout)
    missing = [name for name in classes if name not in found]
    if missing:
        raise ValueError(
            f"javap found no HIGHEST_SUPPORTED_VERSION in {jar.name} for "
            f"{', '.join(missing)}: {out.stderr.strip()[:200]}"
        )
    return {key: found[name] for key, name in zip(apis, classes)}


def _highest_by_class(javap_output: str) -> dict[str, int]:
    found: dict[str, int] = {}
    current = None
    for line in javap_output.splitlines():
        named = re.search(r"class (\S+) ", line)
        if named:
            current = named.group(1)
        highest = re.search(r"HIGHEST_SUPPORTED_VERSION = (\d+);", line)
        if highest and current is not None:
            found[current] = int(highest.group(1))
    return found


_LOADED_FEATURES = re.compile(
    r"metadataVersion=Optional\[([^\]]+)\], finalizedFeatures=\{[^}]*?"
    r"metadata\.version=(\d+)"
)


def metadata_version_names(log_text: str) -> dict[int, str]:
    """metadata.version levels and the names Kafka gives them (27 -> `4.1-IV1`), as a node logs
    them each time it loads new metadata (`Loaded new metadata FinalizedFeatures(...)`)."""
    return {int(level): name for name, level in _LOADED_FEATURES.findall(log_text)}


# How a node whose software does not know the finalized metadata.version dies while starting;
# which part replays the record first is a race: the broker's metadata loader, or the standby
# controller (both seen on the same cluster, 26 Nov 2026).
_UNKNOWN_LEVEL = (
    re.compile(r"No MetadataVersion with feature level (\d+)\.[^\n]*"),
    re.compile(
        r"Tried to apply FeatureLevelRecord[^\n]*?name='metadata\.version', "
        r"featureLevel=(\d+)\)[^\n]*"
    ),
)


def unknown_level_refusal(log_text: str, level: int) -> str | None:
    """The log line in which a node refused a metadata.version `level` its software does not
    know, or None."""
    for pattern in _UNKNOWN_LEVEL:
        for found in pattern.finditer(log_text):
            if int(found.group(1)) == level:
                return found.group(0).strip()
    return None


def jar_version(jar: Path) -> str:
    """`kafka-clients-3.9.1.jar` -> `3.9.1`."""
    match = re.match(r"^kafka-clients-(.+)\.jar$", jar.name)
    if not match:
        raise ValueError(f"{jar.name} is not a kafka-clients jar")
    return match.group(1)
