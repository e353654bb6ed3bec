"""chaos end to end (`python -m scenarios run chaos --fast --kills 2 --seed 3`, and with a gallery
query: `--query queries/dedup.py`, the run CI makes of a user's query): marked e2e.

The query is dropDuplicates, whose rows are written as the groups arrive, so the oracle holds
them row for row. A windowed query was tried first: its windows close only as the watermark
passes them, and a run quick enough (44 s on CI's machine) wrote no window at all, which the
oracle rightly held as boundary-dependent and the test could not read a duplicate from."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from spark_app.lines.query_rows import read_written
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


@pytest.mark.e2e
def test_a_deduplicating_query_killed_at_random_moments_is_exactly_once_by_the_oracle(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("chaos", reports, "--query", "queries/dedup.py")
    facts = result["facts"]
    assert Path(facts["query"]).name == "dedup.py"
    # The kills happened: each read back from the checkpoint and the query's batch files.
    landings = facts["kills_exactly-once"]
    assert len(landings) == facts["kills"] == 2
    assert all(k["query"] for k in landings)
    assert sum(e["kind"] == "kill" for e in facts["timeline"]["events"]) == 2
    # The oracle's verdict over every record sent, row for row; the at-least-once half is not run.
    (oracle,) = checks_named(result, "› exactly once")
    assert oracle["held"] and oracle["actual"].startswith("OK: append mode, KEY ['group']")
    assert not checks_named(result, "At-least-once sink")
    # The rows as a user reads them: every group of three values so far, none of them twice.
    rows = read_written(reports / "chaos" / "log" / "query-output")
    groups = Counter(row["group"] for row in rows)
    assert groups and max(groups.values()) == 1
    assert sorted(groups) == list(range(len(groups)))  # no group skipped
