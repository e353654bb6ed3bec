"""kafka-outage end to end (`python -m scenarios run kafka-outage --fast`): marked e2e, run with --slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly  # paid for the nemesis's CI minutes: docs/testing.md#nightly
def test_a_short_cut_is_ridden_out_and_a_long_one_supervised(tmp_path: Path) -> None:
    result = run_scenario("kafka-outage", tmp_path / "reports")
    assert checks_named(result, "the app rode out the short outage")
    assert checks_named(result, "the supervisor restarted the app because Kafka was unreachable")
    assert checks_named(result, "every message so far exactly once")
    assert checks_named(result, "the supervisor gives up on data loss")
    facts = result["facts"]
    assert facts["restarts"] >= 1
    assert all(reason.startswith("KAFKA_UNREACHABLE") for reason in facts["restart_reasons"])
    assert "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE" in facts["gave_up_line"]


@pytest.mark.e2e
@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_a_users_query_rides_the_cuts_and_is_judged_up_to_the_last_commit(tmp_path: Path) -> None:
    result = run_scenario(
        "kafka-outage", tmp_path / "reports", "--query", "queries/window_count.py"
    )
    assert result["facts"]["query"].endswith("queries/window_count.py")
    assert checks_named(result, "the app rode out the short outage")
    assert checks_named(result, "caught up after the cuts")
    assert checks_named(result, "the supervisor gives up on data loss")
    # The oracle ran once, and held the rows to the query over what the checkpoint committed.
    assert checks_named(result, "the query's rows exactly once up to the last commit")
    assert result["facts"]["time_spent"]["oracle"]["count"] == 1
    assert not checks_named(result, "every message so far exactly once")  # the counter's
