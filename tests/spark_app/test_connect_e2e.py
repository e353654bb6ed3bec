"""The app under `--connect` end to end, on Apache Kafka with Spark's connector: the counter
runs through Spark Connect, stops between batches, restarts on its checkpoint and counts every
message exactly once; a negative key crashes the whole app with 255 from the server's process.
Marked nightly: CI's hour is full (docs/testing.md#nightly); the fidelity row
(`matrix --api classic,connect`) runs the same through the seed's scenarios."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_endless_retention_holds_every_check_under_spark_connect(tmp_path: Path) -> None:
    result = run_scenario("endless-retention", tmp_path / "reports", "--connect")
    failed = [c["name"] for c in result["checks"] if not c["held"]]
    assert result["verdict"] == "passed" and not failed, failed
    crash = next(c for c in result["checks"] if "negative key" in c["name"])
    assert "255" in crash["actual"]
