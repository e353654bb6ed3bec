"""check-change's verdict, from what a restart did and what the oracle said."""

from __future__ import annotations

from scenarios.checker.change_verdict import (
    CONTINUES,
    DIFFERS,
    REFUSED,
    PinnedChange,
    judge_change,
    refusal,
)
from scenarios.checker.query_results import compare
from scenarios.run.check_change import pinned_changes

EXPECTED = [{"bucket": 0, "records": 4}]


def test_a_change_whose_rows_agree_continues_with_exit_0() -> None:
    same = compare(
        EXPECTED, [{"bucket": 0, "records": 4, "batch_id": 3}], mode="update", key=["bucket"]
    )
    verdict = judge_change(continued=True, comparison=same, old_key=["bucket"], new_key=["bucket"])
    assert verdict.kind == CONTINUES and verdict.exit_code == 0


def test_rows_that_differ_name_the_key_and_the_likely_cause() -> None:
    stale = compare(
        EXPECTED, [{"bucket": 0, "records": 9, "batch_id": 3}], mode="update", key=["bucket"]
    )
    plain = judge_change(continued=True, comparison=stale, old_key=["bucket"], new_key=["bucket"])
    assert plain.kind == DIFFERS and plain.exit_code == 1
    assert "bucket=0" in plain.line() and "state kept under an old meaning" in plain.cause
    renamed = judge_change(continued=True, comparison=stale, old_key=["b"], new_key=["bucket"])
    assert "a renamed or swapped key" in renamed.cause
    pinned = PinnedChange("shuffle_partitions", "1", "4")
    kept = judge_change(
        continued=True,
        comparison=stale,
        old_key=["bucket"],
        new_key=["bucket"],
        pinned_changes=[pinned],
    )
    assert "the checkpoint pinned 1, NEW asked for 4" in kept.cause


def test_a_refusal_names_sparks_most_specific_class_and_what_to_do() -> None:
    output = (
        "error: STREAM_FAILED: [STREAM_FAILED] Query [id = 1] terminated with exception: "
        "[STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA] Streaming stateful operator"
    )
    said = refusal("STREAM_FAILED: [STREAM_FAILED] Query terminated", output)
    assert said.startswith(
        "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA: a stateful operator"
    )
    verdict = judge_change(continued=False, refusal=said)
    assert verdict.kind == REFUSED and verdict.exit_code == 1


def test_a_refusal_in_the_apps_own_words_still_names_sparks_class() -> None:
    line = (
        "CHECKPOINT_UNUSABLE.STATE_SCHEMA_CHANGED: Spark refused the checkpoint in cp: "
        "STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE; the checkpoint's state has the fields (count)"
    )
    said = refusal(line, "error: " + line)
    assert said.startswith("STATE_STORE_VALUE_SCHEMA_NOT_COMPATIBLE: keep the state's schema")


def test_a_store_named_as_the_app_names_it_is_the_one_the_checkpoint_pinned() -> None:
    key = "spark.sql.streaming.stateStore.providerClass"
    rocksdb = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
    hdfs = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
    assert pinned_changes({key: rocksdb}, {"state_store": "rocksdb"}) == []
    assert pinned_changes({key: hdfs}, {"state_store": "hdfs"}) == []
    [change] = pinned_changes({key: hdfs}, {"state_store": "rocksdb"})
    assert (change.name, change.pinned, change.asked) == ("state_store", hdfs, "rocksdb")
    shuffle = {"spark.sql.shuffle.partitions": "1"}
    assert [c.asked for c in pinned_changes(shuffle, {"shuffle_partitions": 4})] == ["4"]
    assert pinned_changes(shuffle, {"shuffle_partitions": 1}) == []
    # Equal, not contained: 2 partitions asked of a checkpoint that pinned 20 is a change.
    twenty = {"spark.sql.shuffle.partitions": "20"}
    assert [c.asked for c in pinned_changes(twenty, {"shuffle_partitions": 2})] == ["2"]
