"""The two scenarios of the query axis whose own e2e tests run only the counter, run with a
gallery query (`python -m scenarios run endless-retention --fast --query queries/count_per_key.py`
and parallelism's): marked e2e, nightly (docs/testing.md#nightly). chaos's run with a query is
CI's (test_chaos_e2e.py); the other scenarios' are beside their counter's runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario

pytestmark = [pytest.mark.e2e, pytest.mark.nightly]  # docs/testing.md#nightly


def _judged_by_the_oracle(result: dict) -> None:
    """Every check held, and the last is the oracle's over every record sent."""
    assert result["verdict"] == "passed", [c["label"] for c in result["checks"] if not c["held"]]
    assert result["facts"]["query"].endswith("queries/count_per_key.py")
    oracle = checks_named(result, "exactly once")
    assert oracle and all(c["held"] for c in oracle)
    assert "update mode, KEY ['bucket']" in oracle[-1]["actual"]


def test_endless_retention_with_a_users_query(tmp_path: Path) -> None:
    result = run_scenario(
        "endless-retention", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    _judged_by_the_oracle(result)
    # Each way down (two kills, SIGTERM) ends caught up with Kafka, and the crash is the app's.
    assert len(checks_named(result, "caught up")) == 3
    assert checks_named(result, "the app crashed itself on the negative key")[0]["held"]


def test_parallelism_with_a_users_query(tmp_path: Path) -> None:
    result = run_scenario(
        "parallelism", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    _judged_by_the_oracle(result)
