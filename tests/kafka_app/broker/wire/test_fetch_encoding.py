"""The Fetch answer written without copying its records is, byte for byte, what kafka-python's
codec writes, for every version the broker serves and for the shapes the handler builds."""

from __future__ import annotations

import pytest
from kafka.protocol.api_key import ApiKey
from kafka.protocol.consumer.fetch import FetchResponse

from kafka_app.broker.wire.fetch_encoding import encode_fetch_response
from kafka_app.broker.wire.versions import API_VERSIONS
from tests.kafka_app.broker.storage_helpers import batch

_Topic = FetchResponse.FetchableTopicResponse
_Partition = _Topic.PartitionData
_Aborted = _Partition.AbortedTransaction
_SPEC = API_VERSIONS[ApiKey.Fetch]
VERSIONS = range(_SPEC.min_version, _SPEC.max_version + 1)


def _partition(index: int, records: bytes | None, aborted: list | None) -> _Partition:
    return _Partition(
        partition_index=index,
        error_code=index % 3,
        high_watermark=10**12 + index,
        last_stable_offset=7,
        log_start_offset=-1,
        aborted_transactions=aborted,
        preferred_read_replica=-1,
        records=records,
    )


def _responses() -> list[FetchResponse]:
    big = batch([b"v" * 300] * 200)  # > 127 bytes: a multi-byte compact length
    return [
        FetchResponse(throttle_time_ms=0, error_code=0, session_id=0, responses=[]),
        FetchResponse(
            throttle_time_ms=5,
            error_code=0,
            session_id=9,
            responses=[
                _Topic(
                    topic="events",
                    partitions=[
                        _partition(0, big, None),
                        _partition(1, b"", []),
                        _partition(2, None, None),
                    ],
                ),
                _Topic(
                    topic="é" * 70,
                    partitions=[
                        _partition(3, batch([b"a"]), [_Aborted(producer_id=4, first_offset=5)])
                    ],
                ),
            ],
        ),
    ]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", range(2))
def test_fetch_answers_encode_as_the_codec_does(version: int, case: int) -> None:
    response = _responses()[case]
    assert b"".join(encode_fetch_response(response, version)) == bytes(
        response.encode(version=version)
    )


def test_records_are_passed_on_not_copied() -> None:
    records = batch([b"x" * 1000])
    response = FetchResponse(
        throttle_time_ms=0,
        error_code=0,
        session_id=0,
        responses=[_Topic(topic="t", partitions=[_partition(0, records, None)])],
    )
    assert any(part is records for part in encode_fetch_response(response, 12))
