"""poison-pill end to end (`python -m scenarios run poison-pill --fast`): marked e2e, run with --slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly  # paid for check-change's two CI pairs: docs/testing.md#nightly
def test_restarts_crash_at_the_same_offset_until_the_code_is_fixed(tmp_path: Path) -> None:
    result = run_scenario("poison-pill", tmp_path / "reports")
    facts = result["facts"]
    restarts = facts["crash_restarts"]
    assert restarts >= 2
    first = facts["first_crash"]
    for number in range(1, restarts + 1):
        again = facts[f"restart_{number}"]
        assert (again["batch"], again["start"], again["end"], again["last_commit"]) == (
            first["batch"],
            first["start"],
            first["end"],
            first["last_commit"],
        )
    assert len(checks_named(result, "same pending batch, same offsets")) == restarts
    assert checks_named(result, "the stuck batch is committed with its original offsets")
    assert checks_named(result, "check the output log › exactly once")
