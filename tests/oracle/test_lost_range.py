"""The `--lost` ranges a scenario writes and the oracle reads (oracle/evaluate.py owns both)."""

from __future__ import annotations

import pytest

from kafka_app.sent_records import SentRecord
from oracle.evaluate import LostRange, kept_records


def _record(offset: int, partition: int = 0) -> SentRecord:
    return SentRecord(
        topic="Experience",
        partition=partition,
        offset=offset,
        key=None,
        value=str(offset),
        timestamp_ms=0,
    )


@pytest.mark.parametrize(
    "span", [LostRange("Experience", 0, 24, 59), LostRange("Experience", 3, 132, None)]
)
def test_a_range_written_is_the_range_read(span: LostRange) -> None:
    assert LostRange.parse(span.text()) == span


def test_a_closed_range_leaves_out_its_offsets_and_no_more() -> None:
    kept = kept_records([_record(n) for n in range(6)], [LostRange.parse("Experience:0:2-4")])
    assert [r.offset for r in kept] == [0, 1, 4, 5]


def test_an_open_range_leaves_out_every_later_offset_of_its_partition_only() -> None:
    # A producer still sending while the oracle reads: whatever came after the last commit.
    records = [_record(n) for n in range(5)] + [_record(7, partition=1)]
    kept = kept_records(records, [LostRange.parse("Experience:0:3-")])
    assert [(r.partition, r.offset) for r in kept] == [(0, 0), (0, 1), (0, 2), (1, 7)]


@pytest.mark.parametrize("text", ["Experience:0:24", "Experience:x:1-2", "Experience:0:-5"])
def test_a_malformed_range_is_named_with_the_form_to_write(text: str) -> None:
    with pytest.raises(ValueError, match="TOPIC:PARTITION:FROM-UNTIL"):
        LostRange.parse(text)
