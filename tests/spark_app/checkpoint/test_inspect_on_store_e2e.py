"""`inspect --checkpoint-store hdfs|s3`, or `--checkpoint-dir hdfs://…|s3a://…`: a checkpoint on
a store reads as the same folder does here, named where it lives. The store is ours (`python -m
checkpoint_stores`), the checkpoint put on it through its HTTP API, and `inspect` reads it with
Hadoop's own client.

hdfs runs in CI; s3 is nightly, since Spark's S3A client brings the AWS SDK's 686 MB bundle.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.checkpoint.inspect import report_in_output
from tests.checkpoint_stores.store_helpers import put_folder, start_store
from tests.spark_app.app_process import REPO_ROOT
from tests.spark_app.checkpoint.test_reader import make_checkpoint
from tests.spark_app.kafka_helpers import create_topic, send_counter

pytestmark = pytest.mark.e2e


def _inspect(tmp_path: Path, bootstrap: str, *where: str) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "spark_app",
        "inspect",
        "--json",
        "--no-state",
        "--bootstrap-servers",
        bootstrap,
        "--log-dir",
        str(tmp_path / "log"),
        *where,
    ]
    done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    report = report_in_output(done.stdout)
    assert done.returncode == 0 and report is not None, done.stdout + done.stderr
    return report


@pytest.mark.parametrize("store", ["hdfs", pytest.param("s3", marks=pytest.mark.nightly)])
def test_a_checkpoint_on_a_store_reads_as_the_same_folder_here(
    store: str, embedded_broker, tmp_path: Path
) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    send_counter(bootstrap, range(1, 201))
    (tmp_path / "cp").mkdir()
    local = make_checkpoint(tmp_path / "cp", [50, 120, 150], committed=2)  # batch 2 pending
    (local / "state" / "0" / "0" / "1.delta").unlink()  # lost: a restart cannot open the state
    process, url, _ = start_store(store, tmp_path / "store")
    try:
        put_folder(store, process, url, local, "team/cp")
        location = CheckpointPlace(store, Path("team/cp"), url).location  # type: ignore[arg-type]
        on_store = ["--checkpoint-store", store, "--checkpoint-store-url", url]
        here = _inspect(tmp_path, bootstrap, "--checkpoint-dir", str(local))
        # As a user names a checkpoint on their own store: its URI, an S3 endpoint beside it.
        endpoint = ["--checkpoint-store-url", url] if store == "s3" else []
        there = _inspect(tmp_path, bootstrap, *endpoint, "--checkpoint-dir", location)
        nothing = _inspect(tmp_path, bootstrap, *on_store, "--checkpoint-dir", "team/none")
    finally:
        process.stop()
    assert there["checkpoint"] == location
    assert there["pending_batch"] == 2 and there["resume_from"] == {"Experience": {"0": 120}}
    # Everything else the same, the lost delta named on the store rather than in the copy.
    assert there["blockers"] and there["blockers"] == [
        sentence.replace(str(local), location) for sentence in here["blockers"]
    ]
    differ = ("checkpoint", "blockers")
    assert {k: v for k, v in there.items() if k not in differ} == {
        k: v for k, v in here.items() if k not in differ
    }
    assert nothing["exists"] is False and nothing["checkpoint"].endswith("team/none")
    assert not (tmp_path / "log" / "inspect").exists(), "the copy was left behind"
