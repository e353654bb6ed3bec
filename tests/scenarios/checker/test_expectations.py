"""The checks' own wording: what a reader of a report sees as expected and actual."""

from __future__ import annotations

from scenarios.checker.expectations import equals


def test_equals_writes_both_sides_the_same_way_and_holds_only_when_equal() -> None:
    held = equals("pinned", "avro", "avro", lambda v: f"encoding={v}")
    assert held.held and held.expected == held.actual == "encoding=avro"
    failed = equals("committed", {"p0": 3}, {"p0": 4})
    assert not failed.held
    assert failed.detail == "expected {'p0': 4}; got {'p0': 3}"
