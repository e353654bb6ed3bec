"""upgrade end to end (`python -m scenarios run upgrade --fast`): marked e2e, run with --slow."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from scenarios.checker.verify import verify_file
from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly  # paid for check-change's two CI pairs: docs/testing.md#nightly
def test_allowed_change_continues_schema_change_refused_blue_green_doubles_the_overlap(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("upgrade", reports)
    facts = result["facts"]
    assert "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE" in facts["refusal"]
    assert facts["refusal"].startswith("spark_app: CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED")
    assert checks_named(result, "new output format › exactly once")
    assert checks_named(result, "checkpoint A and the output log are untouched")

    # The two output logs, read as a user would: blue's on A, green's beside it.
    blue = verify_file(reports / "upgrade" / "log" / "streaming-output.log")
    green = verify_file(reports / "upgrade" / "green" / "log" / "streaming-output.log")
    total = facts["messages_sent"]
    assert blue.ok and blue.v2_messages > 0 and blue.messages > blue.v2_messages
    assert green.v2_messages == green.messages and green.highest == total
    assert (
        green.lowest == facts["green_first_value"] and green.final_count == total - green.lowest + 1
    )
    both = Counter(blue.values) + Counter(green.values)
    assert set(both) == set(range(1, total + 1))
    doubled = sorted(v for v, n in both.items() if n == 2)
    assert doubled == list(range(green.lowest, blue.highest + 1)) and max(both.values()) == 2
    assert facts["duplicates"] == len(doubled) > 0
