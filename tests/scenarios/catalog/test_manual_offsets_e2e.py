"""manual-offsets end to end (`python -m scenarios run manual-offsets --fast`): marked e2e, run
with --slow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
def test_a_fresh_checkpoint_resumes_from_the_group_with_the_replayed_batch_counted(
    tmp_path: Path,
) -> None:
    result = run_scenario("manual-offsets", tmp_path / "reports")
    facts = result["facts"]
    killed, stopped = facts["after_kill_9"], facts["after_SIGTERM"]
    # Each restart resumes from the group's offset, never past what the log holds.
    assert killed["committed"] <= killed["highest"] and stopped["committed"] <= stopped["highest"]
    assert stopped["committed"] > killed["committed"]
    assert facts["duplicated_values"] == killed["replayed"] + stopped["replayed"]
    assert len(checks_named(result, "the new query starts at the group's offset")) == 2
    assert len(checks_named(result, "the app says where it started")) == 2
    assert len(checks_named(result, "the count starts again at 1")) == 2
    # While it runs, and after each way down.
    assert len(checks_named(result, "the group holds the start of the last planned batch")) == 3
    assert checks_named(result, "--shuffle-partitions 2 › the new checkpoint uses the new setting")
    for final in ("missing values", "duplicated values", "count resets"):
        assert checks_named(result, f"check the output log › {final}")
