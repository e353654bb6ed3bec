"""Every advertised API version can be decoded and answered by the codec we rely on."""

from __future__ import annotations

import pytest

from kafka_app.broker.wire.versions import API_VERSIONS

_CASES = [
    (key, version)
    for key, spec in API_VERSIONS.items()
    for version in range(spec.min_version, spec.max_version + 1)
]


@pytest.mark.parametrize("key, version", _CASES, ids=[f"{k.name}-v{v}" for k, v in _CASES])
def test_request_and_response_round_trip(key, version: int) -> None:
    spec = API_VERSIONS[key]
    request = spec.request[version]()
    request.with_header(correlation_id=9, client_id="versions-test")
    decoded = spec.request.decode(bytes(request.encode(header=True)), version=version, header=True)
    assert decoded.header.correlation_id == 9
    response = spec.response[version]()
    response.with_header(correlation_id=9)
    framed = bytes(response.encode(header=True, framed=True))
    assert (
        spec.response.decode(
            framed, version=version, header=True, framed=True
        ).header.correlation_id
        == 9
    )


def test_versions_stay_below_topic_ids() -> None:
    # Fetch 13+, Produce 13 and OffsetCommit/OffsetFetch 10 name topics by id, which we do not track.
    by_name = {key.name: spec.max_version for key, spec in API_VERSIONS.items()}
    assert by_name["Fetch"] <= 12 and by_name["Produce"] <= 12
    assert by_name["OffsetCommit"] <= 9 and by_name["OffsetFetch"] <= 9
