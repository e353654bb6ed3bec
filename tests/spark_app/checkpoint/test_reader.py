"""The pure checkpoint reader on crafted folders shaped like what Spark writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_app.checkpoint.reader import committed_batches, read_checkpoint
from spark_app.errors import CheckpointError
from spark_app.offsets import TopicPartition

TP0 = TopicPartition("Experience", 0)
CONF = {"spark.sql.shuffle.partitions": "1"}


def write_offsets(root: Path, batch: int, offset: int, prefix: bytes = b"") -> None:
    meta = {"batchWatermarkMs": 0, "batchTimestampMs": 1700000000000 + batch, "conf": CONF}
    body = f"v1\n{json.dumps(meta)}\n{json.dumps({'Experience': {'0': offset}})}"
    (root / "offsets").mkdir(parents=True, exist_ok=True)
    (root / "offsets" / str(batch)).write_bytes(prefix + body.encode())
    # Spark's checksum files sit beside the batches and must be ignored.
    (root / "offsets" / f".{batch}.crc").write_bytes(b"\x01\x02")


def write_commit(root: Path, batch: int) -> None:
    (root / "commits").mkdir(parents=True, exist_ok=True)
    (root / "commits" / str(batch)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def make_checkpoint(root: Path, ends: list[int], committed: int) -> Path:
    (root / "metadata").write_text('{"id":"6b0c6f0e-1111-2222-3333-444455556666"}')
    for batch, end in enumerate(ends):
        write_offsets(root, batch, end)
    for batch in range(committed):
        write_commit(root, batch)
        write_state_delta(root, batch + 1)
    return root


def write_state_delta(root: Path, version: int) -> None:
    # The count's state store writes version N+1 when batch N runs; restarts need the chain.
    store = root / "state" / "0" / "0"
    store.mkdir(parents=True, exist_ok=True)
    (store / f"{version}.delta").write_bytes(b"")


def test_missing_folder_is_a_new_query(tmp_path: Path) -> None:
    info = read_checkpoint(tmp_path / "nope")
    assert not info.exists and info.is_new and info.resume_from is None


def test_all_committed_resumes_at_end_of_last_batch(tmp_path: Path) -> None:
    info = read_checkpoint(make_checkpoint(tmp_path, [5, 9, 12], committed=3))
    assert info.query_id == "6b0c6f0e-1111-2222-3333-444455556666"
    assert info.last_committed_id == 2 and info.pending is None
    assert info.resume_from == {TP0: 12}
    assert info.conf["spark.sql.shuffle.partitions"] == "1"


def test_pending_batch_is_replayed_from_previous_end(tmp_path: Path) -> None:
    info = read_checkpoint(make_checkpoint(tmp_path, [5, 9, 12], committed=2))
    assert info.last_committed_id == 1
    assert info.pending_id == 2 and info.pending.end == {TP0: 12}
    assert info.resume_from == {TP0: 9}


def test_first_batch_pending_starts_at_initial_source_offset_with_zero_byte(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [7], committed=0)
    (tmp_path / "sources" / "0").mkdir(parents=True)
    # Spark's Kafka source writes a NUL before v1 here (SPARK-19517).
    (tmp_path / "sources" / "0" / "0").write_bytes(b'\x00v1\n{"Experience":{"0":3}}')
    info = read_checkpoint(tmp_path)
    assert info.last_committed is None and info.pending_id == 0
    assert info.initial_offsets == {TP0: 3} and info.resume_from == {TP0: 3}


def test_zero_byte_before_version_in_offsets_file(tmp_path: Path) -> None:
    write_offsets(tmp_path, 0, 4, prefix=b"\x00")
    write_commit(tmp_path, 0)
    assert read_checkpoint(tmp_path).resume_from == {TP0: 4}


def test_committed_batches_lists_history(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9, 12], committed=2)
    history = committed_batches(tmp_path)
    assert [(b.batch_id, b.end) for b in history] == [(0, {TP0: 5}), (1, {TP0: 9})]
    assert all(b.committed_at_ms for b in history)


def test_garbage_file_is_a_checkpoint_error(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5], committed=0)
    (tmp_path / "offsets" / "0").write_text("hello\nworld")
    with pytest.raises(CheckpointError, match="version line"):
        read_checkpoint(tmp_path)


def test_truncated_offsets_file_is_a_checkpoint_error(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5], committed=0)
    (tmp_path / "offsets" / "0").write_text("v1\n")
    with pytest.raises(CheckpointError, match="cut short"):
        read_checkpoint(tmp_path)
