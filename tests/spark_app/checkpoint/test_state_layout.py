"""What `inspect --state-source` reads from the files without Spark: the store's kind, its
format and the files the next batch loads. The folders are crafted with the names a real
Spark 4.3 run wrote (docs/spark-state-verified.md); test_state_reader.py checks the same on
real checkpoints."""

from __future__ import annotations

import json
from pathlib import Path

from spark_app.checkpoint.state_data_source import StateReport, files_to_load, store_layout
from spark_app.runtime.state_store import PROVIDER_CLASSES, PROVIDER_CONF
from tests.spark_app.checkpoint.test_reader import make_checkpoint

ID_A, ID_B = "9bbe1dd8-5467-4c0c-8f9d-3883515032b9", "5015fea5-d050-425a-be11-b71ad25f10ab"


def pin(root: Path, batch: int, kind: str) -> None:
    """Rewrite offsets/<batch> with the provider Spark pins there."""
    path = root / "offsets" / str(batch)
    version, meta, *sources = path.read_text().split("\n")
    conf = dict(json.loads(meta), conf={PROVIDER_CONF: PROVIDER_CLASSES[kind]})
    path.write_text("\n".join([version, json.dumps(conf), *sources]))


def touch(folder: Path, *names: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"")


def test_hdfs_loads_the_newest_snapshot_then_the_deltas_after_it(tmp_path: Path) -> None:
    root = make_checkpoint(tmp_path, list(range(10, 130, 10)), committed=12)
    pin(root, 11, "hdfs")
    touch(root / "state" / "0" / "0", "10.snapshot")
    layout = store_layout(root)
    assert (layout.kind, layout.format_version, layout.changelog) == ("hdfs", 1, False)
    assert (layout.next_batch, layout.next_files) == (12, ["10.snapshot", "11.delta", "12.delta"])


def test_format_2_is_read_from_the_commit_log_and_picks_the_committed_attempt(
    tmp_path: Path,
) -> None:
    root = make_checkpoint(tmp_path, [10, 20], committed=1)
    pin(root, 1, "rocksdb")
    (root / "commits" / "0").write_text(
        'v2\n{"nextBatchWatermarkMs":0,"stateUniqueIds":{"0":[["' + ID_B + '"]]}}'
    )
    store = root / "state" / "0" / "0"
    (store / "1.delta").unlink()
    touch(store, f"1_{ID_A}.zip", f"1_{ID_B}.zip")  # a retried attempt left two files
    layout = store_layout(root)
    assert (layout.kind, layout.format_version, layout.state_ids) == ("rocksdb", 2, [ID_B])
    assert layout.next_files == [f"1_{ID_B}.zip"]
    assert layout.uncommitted_files == [f"1_{ID_A}.zip"]
    assert StateReport(layout).lines()[0] == (
        f"state store: rocksdb, snapshot every batch; checkpoint format 2 (state file ids {ID_B})"
    )


def test_changelogs_replay_after_the_last_uploaded_zip(tmp_path: Path) -> None:
    store = tmp_path / "0"
    touch(store, "1.zip", "1.changelog", "2.changelog", "3.changelog")
    assert files_to_load(store, 3) == ["1.zip", "2.changelog", "3.changelog"]
    assert files_to_load(store, 5) == [
        "1.zip",
        "2.changelog",
        "3.changelog",
        "4.(missing)",
        "5.(missing)",
    ]
