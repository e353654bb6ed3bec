"""checkpoint-growth, run as a user runs it (`python -m scenarios run checkpoint-growth --fast
--report DIR`): every check held, and the figures the report keeps say what the soak showed.

Three Spark starts and about 270 batches: 2 to 3 minutes on a quiet 2-core machine, 5 to 6 on
one loaded by other Spark jobs. Nightly (`pytest --nightly`): the longest soak in the catalog,
it gave CI's hour its room when the containers and checkpoint stores parts joined
(docs/testing.md#nightly).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scenarios.more_helpers import run_scenario

pytestmark = [pytest.mark.e2e, pytest.mark.nightly]


def test_checkpoint_growth(tmp_path: Path) -> None:
    result = run_scenario("checkpoint-growth", tmp_path / "reports")
    held = [c["label"] for c in result["checks"] if c["held"]]

    def held_in(step: str, name: str) -> bool:
        """A check of that name held in the step whose title begins with `step`."""
        return any(label.startswith(step) and label.endswith(f" › {name}") for label in held)

    hdfs, stopped = "HDFS: soak", "Stop the RocksDB app and wait"
    ratio0 = "Restart the RocksDB checkpoint with --extra-space-ratio 0"
    assert held_in(hdfs, "offsets/ and commits/ keep the last N batches")
    assert held_in(hdfs, "the folder's size stops growing")
    assert held_in(stopped, "a stopped query's checkpoint does not change")
    assert held_in(ratio0, "the next run deletes what the stopped one left")
    assert held_in(ratio0, "the extra-space ratio lets N x ratio stale versions pile up")
    assert held_in(hdfs, "exactly once")
    assert held_in(ratio0, "exactly once")
    facts = result["facts"]
    retain = facts["soak"]["retain"]
    # The logs are trimmed from batch N on, by the driver, whatever the store.
    assert facts["hdfs"]["end"]["offsets_entries"] in range(retain - 1, retain + 3)
    # RocksDB's teeth are taller with the ratio than without.
    assert (
        facts["rocksdb"]["state_versions_steady"][1] > facts["ratio0"]["state_versions_steady"][1]
    )
    assert facts["stopped"]["waited_sec"] > 0 and facts["samples"] > 50
