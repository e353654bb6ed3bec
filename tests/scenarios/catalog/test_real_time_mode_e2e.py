"""real-time-mode end to end on the default stack (PySpark 4.2.0, Spark's connector), as a user
runs it: `python -m scenarios run real-time-mode --fast`. Seven Spark starts, four of them in
Real-time Mode, 167 s (29 Nov 2026), so nightly (docs/testing.md#nightly).

Besides the verdict it checks what the scenario is for: real-time's latency is far below
micro-batch's, a kill -9 mid-duration left duplicates in Spark's Kafka sink (exactly those
after the last commit) and none in the app's exactly-once sink, and the counter's refusal is
Spark's allowlist error.
"""

from __future__ import annotations

from pathlib import Path
from statistics import median

import pytest

from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_real_time_mode_is_fast_per_record_and_replays_a_duration_after_a_kill(
    tmp_path: Path,
) -> None:
    result = run_scenario("real-time-mode", tmp_path / "reports")
    facts = result["facts"]
    latency = facts["latency_ms"]
    assert latency["micro_batch"] and latency["real_time"]
    assert median(latency["real_time"]) * 10 <= median(latency["micro_batch"])
    assert facts["duplicated_offsets"] == facts["replay_predicted"]["offsets"] != []
    assert facts["exactly_once_rows"]["twice"] == []
    assert "OPERATOR_OR_SINK_NOT_IN_ALLOWLIST" in facts["counter_refusal"]
