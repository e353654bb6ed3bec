"""The AvailableNow exhibit end to end (`run known-bugs --exhibits SPARK-53560 --fast`) on the
default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists its time: three
Spark starts on a fixed line, five on one with the bug)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import PRESENT, bug_named, line_of
from tests.scenarios.more_helpers import run_scenario

BUG = bug_named("SPARK-53560")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_available_now_exhibit_holds_the_lines_outcome(tmp_path: Path) -> None:
    result = run_scenario("known-bugs", tmp_path / "reports", "--exhibits", BUG.ticket)
    seen = result["facts"][BUG.ticket]
    assert seen["outcome"] == BUG.expected_on(line_of(seen["spark"]))
    checks = {c["name"]: c for c in result["checks"]}
    assert checks[f"museum: {BUG.ticket}: the backfill stopped mid-run with a batch planned"]["held"]
    assert checks[f"museum: {BUG.ticket}: {BUG.title}"]["held"]
    if BUG.lines[line_of(seen["spark"])] == PRESENT:
        assert checks[f"museum: {BUG.ticket}: every restart fails alike (a crash loop)"]["held"]
    else:
        assert checks[f"museum: {BUG.ticket}: the backfill drains every partition, then stops"][
            "held"]
