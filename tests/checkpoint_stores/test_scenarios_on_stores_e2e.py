"""endless-retention and short-retention with the checkpoint on HDFS and on S3, slow-checkpoint on S3
(the seed's latency held by the proxy in front of s3proxy), and the cluster
scenarios (executor-loss, worker-loss) on HDFS, chaos's kills on S3, state-stores and checkpoint-v2
on both (their state files listed on the store, read from a copy), where a cluster of separate
machines keeps it, as a user runs them:
`python -m scenarios run endless-retention --fast --checkpoint-store hdfs|s3`.

Nightly: each run is a store start and four or five Spark starts with their batches on the
store, 2.5 to 4.5 minutes each on two busy cores, beyond the 3 minutes CI's hour has for the stores
(docs/testing.md#nightly). CI keeps each store's own start, write, read and stop
(test_stores_e2e.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from tests.stopped_gently import run_stoppable


@pytest.mark.nightly
@pytest.mark.e2e
@pytest.mark.parametrize(
    ("scenario", "store"),
    [
        (scenario, store)
        for scenario in ("endless-retention", "short-retention")
        for store in ("hdfs", "s3")
    ]
    + [("executor-loss", "hdfs"), ("worker-loss", "hdfs"), ("chaos", "s3")]
    + [
        (scenario, store)
        for scenario in ("state-stores", "checkpoint-v2")
        for store in ("hdfs", "s3")
    ],
)
def test_the_scenario_holds_with_the_checkpoint_on_a_store(
    tmp_path: Path, scenario: str, store: str
) -> None:
    report = tmp_path / "reports"
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            scenario,
            "--fast",
            "--checkpoint-store",
            store,
            "--report",
            str(report),
        ],
        cwd=PROJECT_ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-3000:]
    result = json.loads((report / f"{scenario}.json").read_text())
    assert result["verdict"] == "passed"
    assert result["facts"]["checkpoint_store"]["kind"] == store
    prefix = "hdfs://" if store == "hdfs" else "s3a://"
    # The app's outputs (state-stores names its apps by state store: hdfs-1.out, …).
    outputs = [p.read_text() for p in (report / scenario / "processes").glob("*.out")]
    assert any(f"checkpoints in {prefix}" in text for text in outputs)
    assert not (report / scenario / "store-data").exists()  # removed at the stop
    assert not (report / scenario / "checkpoints").exists()  # nothing went to this disk


@pytest.mark.nightly
@pytest.mark.e2e
def test_slow_checkpoint_on_s3_puts_the_seeds_latency_on_the_uploads(tmp_path: Path) -> None:
    report = tmp_path / "reports"
    done = run_stoppable(
        [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            "slow-checkpoint",
            "--fast",
            "--checkpoint-store",
            "s3",
            "--report",
            str(report),
        ],
        cwd=PROJECT_ROOT,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-3000:]
    facts = json.loads((report / "slow-checkpoint.json").read_text())["facts"]
    # The proxy held the uploads (the seed's mean is 2.6 s, clamped to 1-20 s) and saw the
    # renames S3A makes of them; the timeline read the committed offset from the bucket.
    assert 1.0 <= facts["s3_upload_held_sec_mean"] <= 20.0
    assert facts["s3_requests"]["copy"] >= 3 * 4
    assert facts["lag_max_second_half"] is not None
    assert not (report / "slow-checkpoint" / "checkpoints").exists()
    assert not (report / "slow-checkpoint" / "store-view").exists()
