"""slow-checkpoint end to end (`python -m scenarios run slow-checkpoint --fast`): marked e2e."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_slow_storage_falls_behind_without_growing_the_live_heap_and_a_longer_trigger_helps(
    tmp_path: Path,
) -> None:
    result = run_scenario("slow-checkpoint", tmp_path / "reports")
    facts = result["facts"]
    assert facts["batch_ms_median"] > 1000 and facts["falling_behind_warnings"] > 0
    assert len(facts["live_heap_mib"]) >= 3  # read from the driver JVM's own GC log
    assert checks_named(result, "the live heap stays flat")
    assert checks_named(result, "fewer batches fall behind with the longer trigger")
    assert checks_named(result, "the lag grows to about a batch's worth")
