"""endless-retention with its checkpoint on HDFS and on S3, as a user runs it:
`python -m scenarios run endless-retention --fast --checkpoint-store hdfs|s3`.

Nightly: each run is a store start, five Spark starts and their batches on the store, about
4 to 6 minutes on two busy cores, beyond the 3 minutes CI's hour has for the stores
(docs/testing.md#nightly). CI keeps each store's own start, write, read and stop
(test_stores_e2e.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT


@pytest.mark.nightly
@pytest.mark.e2e
@pytest.mark.parametrize("store", ["hdfs", "s3"])
def test_endless_retention_holds_with_the_checkpoint_on_a_store(tmp_path: Path, store: str) -> None:
    report = tmp_path / "reports"
    done = subprocess.run(
        [sys.executable, "-m", "scenarios", "run", "endless-retention", "--fast",
         "--checkpoint-store", store, "--report", str(report)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-3000:]
    result = json.loads((report / "endless-retention.json").read_text())
    assert result["facts"]["checkpoint_store"]["kind"] == store
    prefix = "hdfs://" if store == "hdfs" else "s3a://"
    spark_out = (report / "endless-retention" / "processes" / "spark-1.out").read_text()
    assert f"checkpoints in {prefix}" in spark_out
    assert not (report / "endless-retention" / "store-data").exists()  # removed at the stop
    assert not (report / "endless-retention" / "checkpoints").exists()  # nothing went to disk
