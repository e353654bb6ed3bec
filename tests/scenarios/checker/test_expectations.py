"""The checks' own wording: what a reader of a report sees as expected and actual."""

from __future__ import annotations

import pytest

from scenarios.checker.expectations import counted_once, equals, value_at_offset, within
from scenarios.checker.verify import verify
from tests.scenarios.checker.test_verify import log_of


def test_equals_writes_both_sides_the_same_way_and_holds_only_when_equal() -> None:
    held = equals("pinned", "avro", "avro", lambda v: f"encoding={v}")
    assert held.held and held.expected == held.actual == "encoding=avro"
    failed = equals("committed", {"p0": 3}, {"p0": 4})
    assert not failed.held
    assert failed.detail == "expected {'p0': 4}; got {'p0': 3}"


def test_within_names_a_range_or_the_one_value_two_equal_readings_pin() -> None:
    ranged = within("latest: started at Kafka's latest offset", 97, 89, 102)
    assert ranged.held and ranged.expected == "between 89 and 102" and ranged.actual == "97"
    pinned = within("earliest: started at Kafka's earliest offset", 0, 0, 0)
    assert pinned.held and pinned.expected == "0"
    assert not within("x", 103, 89, 102).held


def test_value_at_offset_holds_for_the_counter_from_offset_0() -> None:
    held = value_at_offset([1, 2, 3, 4])
    assert held.held and held.actual == "values 1..4 in order"


@pytest.mark.parametrize("values", [[], [2, 3, 4], [1, 3, 2]])
def test_value_at_offset_fails_for_a_topic_that_starts_elsewhere_or_is_out_of_order(
    values: list[int],
) -> None:
    assert not value_at_offset(values).held


def test_counted_once_names_what_is_wrong_with_the_output_log() -> None:
    good = counted_once("caught up exactly once", verify(log_of([(1, 1), (2, 2), (3, 3)])))
    assert good.held and good.expected == "every value once, counts consistent"
    doubled = counted_once("caught up exactly once", verify(log_of([(1, 1), (2, 2), (3, 2)])))
    assert not doubled.held and doubled.actual  # what is wrong, in the checker's words
