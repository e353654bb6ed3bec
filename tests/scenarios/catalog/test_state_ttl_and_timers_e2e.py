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
    checks = {c["name"] for c in result["checks"] if c["held"]}
    facts = result["facts"]
    assert {
        "pause: the idle timer fired once, when due",
        "pause: the next message found last_seen expired, the count went on",
        "kill: the timer had not fired before the kill",
        "read: last_seen expires the TTL after its batch",
        "read: Spark evicted last_seen in the first batch past its expiry",
        "read: the pending timer is in the checkpoint",
        "restart: the timer registered before the kill fired after the restart",
        "restart: no idle batch ran after the restart before new messages",
        "restart: the added field was accepted",
        "final: exactly once",
        "v2-renamed: the rename is accepted, as a new field",
        "v2-narrowed: v2-narrowed is refused with Spark's error class",
    } <= checks
    # PySpark 4.2.0, the lock's: what Spark says when a field is narrowed.
    assert "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION" in facts["v2-narrowed_refusal"]
    assert facts["pause_2_timer"]["due_ms"] == facts["pending_timer_ms"]
