"""The state store flags as Spark confs, and the combinations refused before Spark starts
(in Spark's words where Spark refuses them; the words were taken from the running Spark 4.3)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from spark_app.errors import StateStoreOptionError
from spark_app.runtime.state_store import (
    CHANGELOG_CONF,
    FORMAT_CONF,
    PROVIDER_CLASSES,
    PROVIDER_CONF,
    as_pinned,
    check_state_store,
    format_downgrade_refusal,
    pinned_format_note,
    pinned_store_note,
    state_store_conf,
    state_store_refusal,
    store_kind,
)
from spark_app.settings import SparkAppSettings
from tests.spark_app.app_process import REPO_ROOT

ROCKSDB = SparkAppSettings(state_store="rocksdb")


def test_the_default_is_todays_hdfs_store_and_nothing_else() -> None:
    assert state_store_conf(SparkAppSettings()) == {
        PROVIDER_CONF: "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
    }


def test_rocksdb_with_changelog_and_format_2() -> None:
    settings = replace(ROCKSDB, changelog_checkpointing=True, checkpoint_format=2)
    check_state_store(settings)
    assert state_store_conf(settings) == {
        PROVIDER_CONF: "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        CHANGELOG_CONF: "true",
        FORMAT_CONF: "2",
    }


@pytest.mark.parametrize(
    "change, words",
    [
        (
            {"changelog_checkpointing": True},
            "the HDFS store silently ignores: add --state-store rocksdb",
        ),
        (
            {"checkpoint_format": 2},
            "[STATE_STORE_CHECKPOINT_IDS_NOT_SUPPORTED] HDFSBackedStateStoreProvider "
            "does not support checkpointFormatVersion > 1",
        ),
        (
            {"counter": "transform-with-state"},
            "[UNSUPPORTED_FEATURE.STORE_BACKEND_NOT_SUPPORTED_FOR_TWS]",
        ),
        ({"checkpoint_format": 3}, "Spark knows formats 1 and 2"),
    ],
)
def test_what_hdfs_cannot_do_is_refused_in_one_line(change: dict, words: str) -> None:
    with pytest.raises(StateStoreOptionError) as refused:
        check_state_store(replace(SparkAppSettings(), **change))
    message = str(refused.value)
    assert message.startswith("STATE_STORE_OPTION: --") and words in message
    assert "\n" not in message


def test_spark_4_0_refuses_in_other_words() -> None:
    tws = replace(SparkAppSettings(), counter="transform-with-state")
    assert "[UNSUPPORTED_FEATURE.STATE_STORE_MULTIPLE_COLUMN_FAMILIES]" in state_store_refusal(
        tws, "4.0.5"
    )
    assert "NullPointerException" in state_store_refusal(
        replace(SparkAppSettings(), checkpoint_format=2), "4.0.5"
    )
    assert state_store_refusal(replace(tws, state_store="rocksdb"), "4.0.5") is None


def test_transform_with_state_runs_on_rocksdb() -> None:
    check_state_store(replace(ROCKSDB, counter="transform-with-state"))


def test_a_restart_is_judged_on_the_store_the_checkpoint_pinned() -> None:
    pinned = {PROVIDER_CONF: PROVIDER_CLASSES["hdfs"]}
    asked = replace(ROCKSDB, counter="transform-with-state")
    assert as_pinned(asked, pinned).state_store == "hdfs"
    with pytest.raises(StateStoreOptionError, match="STORE_BACKEND_NOT_SUPPORTED_FOR_TWS"):
        check_state_store(as_pinned(asked, pinned))
    note = pinned_store_note(ROCKSDB, pinned)
    assert note is not None and "Spark keeps hdfs and ignores --state-store rocksdb" in note
    assert pinned_store_note(SparkAppSettings(), pinned) is None
    assert pinned_store_note(ROCKSDB, {}) is None  # a new checkpoint pins nothing yet


def test_store_kind_reads_the_pinned_class_name() -> None:
    assert store_kind(PROVIDER_CLASSES["rocksdb"]) == "rocksdb"
    assert store_kind("com.example.OtherProvider") is None and store_kind(None) is None


def test_the_app_refuses_before_starting_spark(tmp_path) -> None:
    """The command line says why in one line and exits 2, in seconds (no JVM started), and
    before fetching anything: on a fresh clone's empty jar cache it used to fetch Spark's
    connector first, and printed its progress before the refusal."""
    empty_cache = tmp_path / "jar-cache"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "spark_app",
            "--checkpoint-format",
            "2",
            "--checkpoint-dir",
            str(tmp_path / "ck"),
            "--bootstrap-servers",
            "127.0.0.1:1",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "CHECKPOINT_EXPERIENCE_CACHE": str(empty_cache)},
    )
    assert not (empty_cache / "jars").exists()
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "spark_app: STATE_STORE_OPTION: --checkpoint-format 2 needs --state-store rocksdb: Spark "
        "refuses it with [STATE_STORE_CHECKPOINT_IDS_NOT_SUPPORTED] HDFSBackedStateStoreProvider "
        "does not support checkpointFormatVersion > 1"
    ]


def test_a_format_2_checkpoint_keeps_format_2_on_4_3_and_the_app_says_so() -> None:
    note = pinned_format_note(ROCKSDB, 2, "4.3.0")
    assert pinned_format_note(ROCKSDB, 2, "4.2.0") is None  # refused there instead
    assert format_downgrade_refusal(ROCKSDB, 2, "4.3.0") is None
    assert note is not None and "Spark keeps format 2 and ignores --checkpoint-format 1" in note
    assert pinned_format_note(replace(ROCKSDB, checkpoint_format=2), 2) is None
    assert pinned_format_note(ROCKSDB, 1) is None


def test_format_1_on_a_format_2_checkpoint_is_refused_before_4_3_in_sparks_words() -> None:
    refusal = format_downgrade_refusal(ROCKSDB, 2, "4.2.0")
    assert refusal is not None and "\n" not in refusal
    assert "[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED]" in refusal and "Spark 4.2.0" in refusal
    assert "Keep --checkpoint-format 2" in refusal
    assert format_downgrade_refusal(replace(ROCKSDB, checkpoint_format=2), 2, "4.2.0") is None
    assert format_downgrade_refusal(ROCKSDB, 1, "4.2.0") is None


def test_an_initial_state_needs_transform_with_state() -> None:
    seeded = replace(ROCKSDB, initial_state_from=Path("old"))
    with pytest.raises(
        StateStoreOptionError, match="applyInPandasWithState takes no initial state"
    ):
        check_state_store(seeded)
    check_state_store(replace(seeded, counter="transform-with-state"))
