"""backlog end to end (`python -m scenarios run backlog --fast`): one run on the default stack.
Marked nightly: CI's hour is full (docs/testing.md#nightly lists its measured time: six Spark
starts and four bursts of messages)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.backlog import CAP_SHARE, FAST_BACKLOG, MIN_WAITING
from scenarios.checker.verify import verify_file
from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_one_giant_batch_then_bounded_batches_a_backfill_that_stops_and_a_minimum(
    tmp_path: Path,
) -> None:
    reports = tmp_path / "reports"
    result = run_scenario("backlog", reports)
    facts = result["facts"]
    cap = FAST_BACKLOG // CAP_SHARE
    ways = facts["ways"]
    assert list(ways) == ["uncapped", "maxOffsetsPerTrigger", "AvailableNow"]
    assert ways["uncapped"]["biggest_batch"] >= FAST_BACKLOG
    assert (
        ways["maxOffsetsPerTrigger"]["biggest_batch"]
        == ways["AvailableNow"]["biggest_batch"]
        == cap
    )
    assert facts["available_now_exit_code"] == 0
    # The normal trigger resumes where the backfill stopped early.
    assert facts["resumed_from"] == facts["available_now_minimum_committed_end"]
    assert facts["available_now_minimum_left_unread"] >= cap // 2
    assert min(facts["min_offsets_batch_rows"][1:-1]) >= MIN_WAITING
    # The output log as `python -m scenarios verify` reads it: every value once.
    log = verify_file(reports / "backlog" / "log" / "streaming-output.log")
    assert log.ok and log.highest == facts["messages_sent"]
