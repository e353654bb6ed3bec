"""real-time-mode's pure parts: each record's latency and the duplicates, read from the two
topics' records, as the scenario reads them after its runs."""

from __future__ import annotations

import json

from scenarios.catalog.real_time_mode import duplicated_offsets, latencies_ms
from scenarios.engine.observers.topic_records import ReadRecord


def _echo(offset: int, at_ms: int) -> ReadRecord:
    row = {"value": offset + 1, "offset": offset, "sent": "2026-11-29T15:00:00.000Z"}
    return ReadRecord(offset=100 + offset, timestamp_ms=at_ms, value=json.dumps(row).encode())


def test_a_records_latency_is_its_echos_timestamp_minus_its_own() -> None:
    inputs = [ReadRecord(o, 1_000 + 500 * o, str(o + 1).encode()) for o in range(4)]
    outputs = [_echo(0, 1_004), _echo(1, 1_503), _echo(3, 2_510)]
    assert latencies_ms(inputs, outputs) == [4, 3, 10]


def test_an_offset_echoed_twice_is_a_duplicate_and_only_those() -> None:
    outputs = [_echo(o, 0) for o in (0, 1, 2, 3, 2, 3, 4)]
    assert duplicated_offsets(outputs) == [2, 3]
    assert duplicated_offsets([_echo(o, 0) for o in range(5)]) == []
