"""The cut-at-the-first-look-up exhibit end to end (`run known-bugs --exhibits SPARK-55561
--fast`) on the default stack. Marked nightly: CI's hour is full (docs/testing.md#nightly lists
its time: one Spark start under a cut of about 15 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.lines.known_bug_table import bug_named, line_of
from tests.scenarios.more_helpers import run_scenario

BUG = bug_named("SPARK-55561")


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_fresh_query_rides_out_a_cut_at_its_first_look_up(tmp_path: Path) -> None:
    result = run_scenario("known-bugs", tmp_path / "reports", "--exhibits", BUG.ticket)
    seen = result["facts"][BUG.ticket]
    assert seen["outcome"] == BUG.expected_on(line_of(seen["spark"]))
    assert seen["failed_attempts"], "the cut never met the connector's look-up"
    checks = {c["name"]: c for c in result["checks"]}
    assert checks[f"museum: {BUG.ticket}: the cut met the query's first offset look-up"]["held"]
    assert checks[f"museum: {BUG.ticket}: {BUG.title}"]["held"]
