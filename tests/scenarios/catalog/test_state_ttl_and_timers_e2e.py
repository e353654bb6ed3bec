"""state-ttl-and-timers run as a user runs it (`python -m scenarios run state-ttl-and-timers
--fast --report DIR`): the verdict, the checks that carry each lesson, the facts it keeps.

It starts Kafka, the producer and the Spark app four times (one refused) plus one `inspect`:
about 3 to 4 minutes with --fast on a busy machine (217 s at load 15). Marked e2e, run with
`pytest --slow`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import run_scenario

pytestmark = pytest.mark.e2e


def test_state_ttl_and_timers(tmp_path: Path) -> None:
    result = run_scenario("state-ttl-and-timers", tmp_path / "reports")
    checks = {c["label"] for c in result["checks"] if c["held"]}
    facts = result["facts"]
    pause, read = "Pause the producer", "Read the stopped checkpoint with the State Data Source"
    kill = "Pause again and kill -9 the app before its timer is due"
    restart = "Restart with a field added to the count's state (--state-schema v2), then messages"
    renamed = (
        "Restart with a field renamed (--state-schema v2-renamed: last_update_ms -> updated_ms)"
    )
    narrowed = "Restart with a field narrowed (--state-schema v2-narrowed: count bigint -> int)"
    assert {
        "Start the count on transformWithState with a TTL and an idle timer"
        " › Avro encoding is pinned in the offset log",
        f"{pause} › batches ran while the producer was paused",
        f"{pause} › the idle timer fired once, when due",
        f"{pause} › the next message found last_seen expired, the count went on",
        f"{kill} › the timer had not fired before the kill",
        f"{read} › last_seen expires the TTL after its batch",
        f"{read} › Spark evicted last_seen in the first batch past its expiry",
        f"{read} › the pending timer is in the checkpoint",
        f"{restart} › the timer registered before the kill fired after the restart",
        f"{restart} › no idle batch ran after the restart before new messages",
        f"{restart} › the added field was accepted",
        "Stop the producer, let the app catch up, check the output log › exactly once",
        f"{renamed} › the rename is accepted, as a new field",
        f"{narrowed} › v2-narrowed is refused with Spark's error class",
    } <= checks
    # PySpark 4.2.0, the lock's: what Spark says when a field is narrowed.
    assert "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION" in facts["v2-narrowed_refusal"]
    assert facts["pause_2_timer"]["due_ms"] == facts["pending_timer_ms"]
