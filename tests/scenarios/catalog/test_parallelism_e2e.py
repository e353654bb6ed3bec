"""parallelism end to end (`python -m scenarios run parallelism --fast`): marked e2e, run with --slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_three_partitions_read_in_parallel_exactly_once(tmp_path: Path) -> None:
    result = run_scenario("parallelism", tmp_path / "reports")
    facts = result["facts"]
    total = facts["messages_sent"]
    assert (
        len(facts["committed_per_partition"]) == 3
        and sum(facts["committed_per_partition"]) == total
    )
    assert checks_named(result, "a batch reads one range per Kafka partition")
    assert checks_named(result, "the restart replays the checkpoint's ranges")
    assert checks_named(result, "check the output and the checkpoint › exactly once")
