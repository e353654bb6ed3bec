"""state-stores, checkpoint-v2 and state-reader, run as a user runs them (`python -m scenarios run NAME --fast
--report DIR`): the verdict, the checks that carry each lesson, and the facts the report keeps.

Each starts a broker, the producer and the Spark app several times (state-stores seven, about
3 minutes; checkpoint-v2 five): marked e2e, run with `pytest --slow`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scenarios.catalog.state_stores import STORES
from tests.scenarios.more_helpers import run_scenario as run_fast

pytestmark = pytest.mark.e2e


def run_scenario(name: str, tmp_path: Path) -> dict[str, Any]:
    return run_fast(name, tmp_path / "reports")


def held(result: dict[str, Any]) -> set[str]:
    """The labels (`Step title › check name`) of the checks that held."""
    return {c["label"] for c in result["checks"] if c["held"]}


def test_state_stores(tmp_path: Path) -> None:
    result = run_scenario("state-stores", tmp_path)
    checks, facts = held(result), result["facts"]
    for store in STORES:
        assert f"Start Kafka and the producer › {store.name} writes value 1 first" in checks
        new = f"{store.title}: the same stream on a new checkpoint"
        assert f"{new} › the files per batch are the store's" in checks
        restart = f"{store.title}: kill -9 and restart"
        assert {
            f"{restart} › the files the restart loads are on disk",
            f"{restart} › the restart runs the batch after the last commit first",
            f"{restart} › exactly once",
        } <= checks
        assert facts[f"{store.name}_recovery"]["seconds_to_first_write"] > 0
    assert facts["hdfs_files_per_version"]["1"] == ["1.delta"]
    assert facts["rocksdb_files_per_version"]["1"] == ["1.zip"]
    assert facts["rocksdb-changelog_files_per_version"]["1"] == ["1.changelog"]
    assert facts["rocksdb-changelog_snapshot_versions"][0] >= facts["snapshot_every"]
    switch = "Restart the HDFS checkpoint with --state-store rocksdb"
    assert {
        f"{switch} › Spark warns that the offset log overrules the session",
        f"{switch} › the new batches were written by HDFS",
        f"{switch} › exactly once",
    } <= checks


def test_checkpoint_v2(tmp_path: Path) -> None:
    result = run_scenario("checkpoint-v2", tmp_path)
    checks, facts = held(result), result["facts"]
    retry = "Press Enter in the producer: the next key is negative"
    assert {
        "Start Kafka and the producer › the retry read the offsets planned for its batch",
        "Start the app on RocksDB with changelog checkpointing and checkpoint format 2"
        " › every state file is named <v>_<uuid>",
        "Read commits/N › every commit's id names a state file of its version",
        "Read the lineage in the newest changelogs"
        " › each lineage runs from a snapshot (or version 1) to v-1, on committed ids",
        f"{retry} › two attempts' files, the commit names the retry's",
        f"{retry} › later changelogs build on the committed attempt",
        "Go back to format 1 on this checkpoint › the app refuses format 1 in one line",
        "Start again with format 2 › the checkpoint stays format 2",
        "Stop the producer, let the app catch up, check the output log › exactly once",
    } <= checks
    retried = facts["retried_version"]
    assert len(retried["on_disk"]) == 2 and retried["committed"] != retried["first_attempt"]
    assert "CANNOT_LOAD_STATE_STORE" in facts["format_1_refusal"]  # Spark 4.2.0, the lock's


@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_state_stores_with_a_users_query(tmp_path: Path) -> None:
    result = run_fast("state-stores", tmp_path / "reports", "--query", "queries/sessions.py")
    checks, facts = held(result), result["facts"]
    assert facts["query"].endswith("queries/sessions.py")
    for store in STORES:
        first = f"{store.name} starts at the topic's first offset"
        assert f"Start Kafka and the producer › {first}" in checks
        new = f"{store.title}: the same stream on a new checkpoint"
        assert f"{new} › the files per batch are the store's" in checks
        restart = f"{store.title}: kill -9 and restart"
        assert {
            f"{restart} › the files the restart loads are on disk",
            f"{restart} › the restart runs the batch after the last commit first",
        } <= checks
        assert facts[f"{store.name}_recovery"]["seconds_to_first_write"] > 0
    # The oracle judged each store's rows once: HDFS's after the switch, which adds to them.
    assert {
        "RocksDB: kill -9 and restart › exactly once",
        "RocksDB with changelog checkpointing: kill -9 and restart › exactly once",
        "Restart the HDFS checkpoint with --state-store rocksdb › exactly once",
    } <= checks
    assert facts["time_spent"]["oracle"]["count"] == len(STORES)
    switch = "Restart the HDFS checkpoint with --state-store rocksdb"
    assert f"{switch} › the new batches were written by HDFS" in checks


@pytest.mark.nightly  # a scenario's query run beyond chaos's: docs/testing.md#nightly
def test_checkpoint_v2_with_a_users_query(tmp_path: Path) -> None:
    result = run_fast("checkpoint-v2", tmp_path / "reports", "--query", "queries/count_per_key.py")
    checks, facts = held(result), result["facts"]
    assert facts["query"].endswith("queries/count_per_key.py")
    retry = "Press Enter in the producer: the next key is negative"
    assert {
        "Start Kafka and the producer › the retry read the offsets planned for its batch",
        "Start the app on RocksDB with changelog checkpointing and checkpoint format 2"
        " › every state file is named <v>_<uuid>",
        "Read commits/N › every commit's id names a state file of its version",
        f"{retry} › the dead attempt left its state file",  # killed between state and commit
        f"{retry} › two attempts' files, the commit names the retry's",
        f"{retry} › later changelogs build on the committed attempt",
        "Go back to format 1 on this checkpoint › the app refuses format 1 in one line",
        "Stop the producer, let the app catch up, check the output log › exactly once",
    } <= checks
    retried = facts["retried_version"]
    assert len(retried["on_disk"]) == 2 and retried["committed"] != retried["first_attempt"]


@pytest.mark.nightly  # paid for chaos's run of a user's query: docs/testing.md#nightly
def test_state_reader(tmp_path: Path) -> None:
    result = run_scenario("state-reader", tmp_path)
    checks, facts = held(result), result["facts"]
    at = facts["read_batch"]
    read = f"Read the state as batch {at} left it, and the change feed"
    move = "Move the job: transformWithState on a new checkpoint, seeded from the old one"
    new_state = "Read the new checkpoint's state at batch 0"
    assert {
        "The old job: applyInPandasWithState on the HDFS store"
        " › the count after each batch is offsets/N's end",
        f"{read} › the state at batch {at} is its count in offsets and output",
        f"{read} › the change feed holds each batch's count",
        f"{move} › the old job's output ends where its state does",
        f"{move} › the new job seeds the old count",
        f"{move} › the count continues across the move",
        "Restart the new job with the same command › the restart goes on from its own state",
        "Stop the producer, let the new job catch up, read both output logs as one › exactly once",
        f"{new_state} › batch 0's state = seed + its rows",
        f"{new_state} › the change feed shows the seed as batch 0's first write",
    } <= checks
    assert facts["state_report"]["operator"] == "applyInPandasWithState"
    assert facts["tws_state_report"]["operator"] == "transformWithStateInPandasExec"
    assert f"count {facts['seeded_count']} " in facts["seed_line"]
