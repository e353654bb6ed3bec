"""state-repartition run as a user runs it (`python -m scenarios run state-repartition --fast
--report DIR`): every refusal in the app's line, the repartition as one batch that reads no
input, and the restarts on the locked line and on Spark 4.0.0 keeping 4 state partitions with
every message counted once.

Spark starts eight times (three of them the repartition command's, one on 4.0.0, whose
environment spark_envs makes on a machine's first run): 102 and 153 s as a scenario run (29 Nov 2026).
Marked e2e and nightly: CI's hour is full.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.state_repartition import OLDER_LINE, PARTITIONS
from tests.scenarios.more_helpers import run_scenario

pytestmark = [pytest.mark.e2e, pytest.mark.nightly]


def test_state_repartition(tmp_path: Path) -> None:
    result = run_scenario("state-repartition", tmp_path / "reports")
    held = {c["label"] for c in result["checks"] if c["held"]}
    names = {label.split(" › ")[-1] for label in held}
    assert {
        "refused on the HDFS-backed store: UNSUPPORTED_PROVIDER",
        "the refused repartition left the checkpoint as it was",
        "the state is in 1 partition",
        "refused while the app runs: APP_RUNNING",
        "refused after the kill -9: LAST_BATCH_FAILED",
        "available-now stopped by itself, its last batch committed",
        "repartition-state exits 0",
        "the repartition batch read no input",
        f"the state is in {PARTITIONS} partitions",
        f"its batches keep {PARTITIONS} state partitions",
        f"refused on {OLDER_LINE}: STATE_REPARTITION_UNAVAILABLE",
        f"{OLDER_LINE} went on from the repartitioned checkpoint",
        "caught up exactly once",
        "exactly once",
    } <= names
    assert [c["label"] for c in result["checks"] if not c["held"]] == []
