"""The broker reads request headers and writes response headers itself, for speed (see
kafka_app/broker/wire/connection.py); this checks it does exactly what the codec would, for every
API version the broker advertises."""

from __future__ import annotations

import struct

import pytest
from kafka.protocol.api_key import ApiKey

from kafka_app.broker.wire.connection import MalformedRequest, _decode, _encode
from kafka_app.broker.wire.versions import API_VERSIONS

_CASES = [
    (key, version)
    for key, spec in API_VERSIONS.items()
    for version in range(spec.min_version, spec.max_version + 1)
]
_IDS = [f"{k.name}-v{v}" for k, v in _CASES]


@pytest.mark.parametrize("key, version", _CASES, ids=_IDS)
def test_response_bytes_match_the_codec(key: ApiKey, version: int) -> None:
    spec = API_VERSIONS[key]
    by_codec = spec.response[version]()
    by_codec.with_header(correlation_id=123456)
    expected = bytes(by_codec.encode(header=True, framed=True))
    flexible = key != ApiKey.ApiVersions and spec.response.flexible_version_q(version)
    assert b"".join(_encode(spec.response[version](), version, 123456, flexible)) == expected


@pytest.mark.parametrize("client_id", ["consumer-7", None, ""])
@pytest.mark.parametrize("key, version", _CASES, ids=_IDS)
def test_requests_decode_as_the_codec_decodes_them(
    key: ApiKey, version: int, client_id: str | None
) -> None:
    spec = API_VERSIONS[key]
    request = spec.request[version]()
    request.with_header(correlation_id=77, client_id=client_id)
    frame = bytes(request.encode(header=True))
    by_codec = spec.request.decode(frame, version=version, header=True)
    ours = _decode(spec.request, frame, version, key)
    assert repr(ours) == repr(by_codec)
    assert ours.header.client_id == by_codec.header.client_id == client_id
    assert ours.header.correlation_id == 77


def test_tagged_header_fields_are_skipped() -> None:
    # A flexible (v2) request header may carry tagged fields; the body starts after them.
    spec = API_VERSIONS[ApiKey.Metadata]
    request = spec.request[12](
        topics=None, allow_auto_topic_creation=False, include_topic_authorized_operations=False
    )
    body = bytes(request.encode())
    header = struct.pack(">hhih", ApiKey.Metadata, 12, 5, 2) + b"id"
    tagged = b"\x02" + b"\x00\x03abc" + b"\x81\x01\x01z"  # two fields, the second with tag 129
    ours = _decode(spec.request, header + tagged + body, 12, ApiKey.Metadata)
    assert repr(ours) == repr(spec.request.decode(body, version=12))
    assert ours.header.client_id == "id"


@pytest.mark.parametrize(
    "frame",
    [
        struct.pack(">hhih", 3, 12, 1, 50) + b"short",  # client id runs past the end
        struct.pack(">hhih", 3, 12, 1, -1) + b"\x05\x00",  # tagged fields promised, not there
    ],
)
def test_truncated_headers_are_malformed(frame: bytes) -> None:
    with pytest.raises(MalformedRequest):
        _decode(API_VERSIONS[ApiKey.Metadata].request, frame, 12, ApiKey.Metadata)
