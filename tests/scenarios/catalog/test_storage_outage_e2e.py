"""storage-outage end to end (`python -m scenarios run storage-outage --fast`, and with
`--checkpoint-store s3`): marked e2e and nightly (CI's hour is full; docs/testing.md#nightly)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_app.errors import CheckpointDiskFullError, CheckpointStoreLostError, TornFileError
from tests.scenarios.more_helpers import checks_named, run_scenario


@pytest.mark.e2e
@pytest.mark.nightly
def test_torn_writes_and_a_full_disk_on_a_local_checkpoint(tmp_path: Path) -> None:
    result = run_scenario("storage-outage", tmp_path / "reports")
    facts = result["facts"]
    for torn, fact in (("offsets/N+1", "torn offsets"), ("commits/N", "torn commit")):
        [named] = [
            c
            for c in checks_named(result, "inspect names the torn file and its repair")
            if torn in c["step"]
        ]
        assert named["held"]
        assert facts[f"{fact}_restart"]["line"].startswith(TornFileError.token)
    assert facts["torn state_restart"]["condition"] == "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"
    assert checks_named(result, "N+1.delta cut in half › after running batch")
    if os.geteuid() == 0:
        assert facts["disk_full"]["line"].startswith(CheckpointDiskFullError.token)
        assert checks_named(result, "after space was freed the restart continues")
    else:
        assert "root" in facts["disk_full_skipped"]
    assert checks_named(result, "check the output log › exactly once")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_s3_store_cut_mid_run(tmp_path: Path) -> None:
    result = run_scenario("storage-outage", tmp_path / "reports", "--checkpoint-store", "s3")
    facts = result["facts"]
    assert facts["short_store_cut"] == "continued"
    assert facts["store_cut"]["line"].startswith(CheckpointStoreLostError.token)
    assert checks_named(result, "after the store came back the restart continues")
    assert checks_named(result, "check the output log › exactly once")


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_hdfs_namenode_cut_mid_run(tmp_path: Path) -> None:
    result = run_scenario("storage-outage", tmp_path / "reports", "--checkpoint-store", "hdfs")
    facts = result["facts"]
    assert facts["short_store_cut"] == "exited"  # HDFS's client does not ride it out
    assert facts["short_store_cut_exit"]["line"].startswith(CheckpointStoreLostError.token)
    assert checks_named(result, "after the store came back the restart continues")
    assert checks_named(result, "check the output log › exactly once")


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_users_query_on_torn_writes_and_a_full_disk(tmp_path: Path) -> None:
    result = run_scenario(
        "storage-outage", tmp_path / "reports", "--query", "queries/count_per_key.py"
    )
    facts = result["facts"]
    assert facts["query"].endswith("queries/count_per_key.py")
    # The tears are the checkpoint's: refused and repaired as with the counter.
    assert len(checks_named(result, "inspect names the torn file and its repair")) == 2
    assert facts["torn state_restart"]["condition"] == "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"
    for fact in ("torn offsets", "torn commit", "torn state"):
        assert facts[f"{fact}_repaired"]["continued"]  # a new batch in the commit log
    if os.geteuid() == 0:
        assert facts["disk_full"]["line"].startswith(CheckpointDiskFullError.token)
        assert "batches_committed_after_full" in facts["disk_full"]
    # The oracle's verdict on the query's rows, at the end.
    assert checks_named(result, "check the output log › exactly once")
