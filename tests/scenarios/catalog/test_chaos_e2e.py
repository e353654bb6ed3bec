"""chaos end to end (`python -m scenarios run chaos --fast --kills 2 --seed 3`): marked e2e."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly  # paid for the nemesis's CI minutes: docs/testing.md#nightly
def test_random_kills_lose_nothing_and_duplicates_are_counted(tmp_path: Path) -> None:
    result = run_scenario("chaos", tmp_path / "reports", "--kills", "2", "--seed", "3")
    facts = result["facts"]
    assert (facts["kills"], facts["seed"]) == (2, 3)
    for sink in ("exactly-once", "at-least-once"):
        landings = facts[f"kills_{sink}"]
        assert len(landings) == 2
        assert {k["aimed"] for k in landings} <= {"batch boundary", "mid-batch", "mid-write"}
    exactly = {c["name"] for c in checks_named(result, "Exactly-once sink: ")}
    assert "exactly once" in exactly
    at_least = {c["name"] for c in checks_named(result, "At-least-once sink: ")}
    assert {"missing values", "duplicated values"} <= at_least
    assert facts["duplicated_values"] >= 0 and facts["extra_lines"] >= facts["duplicated_values"]
