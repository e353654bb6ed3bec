"""executor-loss and worker-loss end to end (`python -m scenarios run … --fast`), marked e2e.

Each checks, besides the verdict, what a user would look for in the report: Spark's own record
of the lost executor and the moved task, both recovery times, and that no JVM is left (the
helper pgreps the report folder, which every cluster process names on its command line).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_an_executor_killed_during_the_state_write_costs_a_task_not_the_query(
    tmp_path: Path,
) -> None:
    result = run_scenario("executor-loss", tmp_path / "reports")
    facts = result["facts"]
    assert len(facts["executors"]) == 2
    assert facts["executor_removed"] and checks_named(result, "Spark removed the killed executor")
    assert checks_named(result, "the stateful task ran again on the other executor")
    assert 0 < facts["executor_recovery_sec"] < facts["driver_recovery_sec"]


@pytest.mark.e2e
def test_a_worker_killed_with_its_executor_is_replaced_and_the_count_goes_on(
    tmp_path: Path,
) -> None:
    result = run_scenario("worker-loss", tmp_path / "reports")
    facts = result["facts"]
    assert checks_named(result, "the Master marked the worker DEAD")
    assert facts["executors_added_on_replacement"]
    assert facts["worker_recovery_sec"] > 0


@pytest.mark.e2e
@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_a_users_query_loses_an_executor_and_the_driver(tmp_path: Path) -> None:
    result = run_scenario(
        "executor-loss", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    facts = result["facts"]
    assert facts["query"].endswith("queries/count_per_key.py")
    assert checks_named(result, "the stateful task ran again on the other executor")
    # Both recoveries timed to the next commit: a query has no output line.
    assert 0 < facts["executor_recovery_sec"] < facts["driver_recovery_sec"]
    assert checks_named(result, "check the output log › exactly once")  # the oracle's


@pytest.mark.e2e
@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_a_users_query_loses_a_worker(tmp_path: Path) -> None:
    result = run_scenario("worker-loss", tmp_path / "reports", "--query", "queries/sessions.py")
    facts = result["facts"]
    assert facts["query"].endswith("queries/sessions.py")
    assert checks_named(result, "the Master marked the worker DEAD")
    assert facts["executors_added_on_replacement"] and facts["worker_recovery_sec"] > 0
    assert checks_named(result, "check the output log › exactly once")  # the oracle's
