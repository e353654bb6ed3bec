"""The count on RocksDB with changelog checkpointing (checkpoint format 1 and 2) and on
transformWithState, as a real app against the embedded broker: the negative key's crash and
replay, a kill -9 mid-stream, the output log still exactly once (the shared verifier), the
files each store writes, and what `inspect --state-source` then reads.

Marked `spark` and `e2e` (run with `pytest --slow`); each test starts the app three times, then
inspect.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.settings import SparkAppSettings
from tests.spark_app.app_process import AppProcess, wait_until
from tests.spark_app.kafka_helpers import create_topic, send_counter
from tests.spark_app.test_app_e2e import (
    START_SEC,
    CounterProducer,
    catch_up_exactly_once,
    highest_count,
    inspect,
)

pytestmark = [pytest.mark.spark, pytest.mark.e2e]  # a Spark app and its producer, as processes

COMBINATIONS = {
    "rocksdb-changelog": {"state_store": "rocksdb", "changelog_checkpointing": True},
    "transform-with-state": {"state_store": "rocksdb", "counter": "transform-with-state"},
    "format-2": {"state_store": "rocksdb", "changelog_checkpointing": True, "checkpoint_format": 2},
}
OPERATORS = {
    "apply-in-pandas-with-state": "applyInPandasWithState",
    "transform-with-state": "transformWithStateInPandasExec",
}


def state_files(checkpoint: Path) -> list[str]:
    """The state folder's files (Hadoop's hidden .crc aside), relative to state/0."""
    root = checkpoint / "state" / "0"
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )


# CI runs transformWithState's, which no scenario kills; the other two are nightly to keep CI's
# hour, since state-stores kills RocksDB with changelogs and checkpoint-v2 kills format 2 in
# CI's scenarios part (docs/testing.md#nightly).
IN_CI = {"transform-with-state"}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=() if name in IN_CI else pytest.mark.nightly)
        for name in sorted(COMBINATIONS)
    ],
)
def test_crash_then_kill_minus_9_keep_exactly_once(
    name: str, embedded_broker, tmp_path: Path
) -> None:
    bootstrap = embedded_broker.bootstrap_servers
    create_topic(bootstrap)
    settings = SparkAppSettings(
        bootstrap_servers=bootstrap,
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"),
        log_dir=tmp_path / "log",
        trigger_sec=0.5,
        **COMBINATIONS[name],
    )
    args = settings.to_argv()
    send_counter(bootstrap, range(1, 11), negative=[6])
    crashing = AppProcess(tmp_path, args).start()
    assert crashing.wait(START_SEC) == 255, crashing.output()
    assert highest_count(tmp_path) == 5  # died mid-batch after five lines

    producer = CounterProducer(bootstrap, first=11)
    with AppProcess(tmp_path, args) as app:
        wait_until(lambda: highest_count(tmp_path) >= 10, START_SEC, "the replay", app)
        producer.start()
        wait_until(lambda: highest_count(tmp_path) >= 30, START_SEC, "new messages", app)
        time.sleep(0.7)  # kill -9 (leaving the with) while batches keep coming, not in a pause
    total = producer.stop()
    catch_up_exactly_once(tmp_path, args, total)
    text = (tmp_path / "log" / "streaming-output.log").read_text()
    assert "[StreamingOutput]: Experience: -6 -> 6" in text
    files = state_files(settings.checkpoint.folder)
    assert any(f.endswith(".changelog") for f in files) == settings.changelog_checkpointing, files
    assert not any(f.endswith((".delta", ".snapshot")) for f in files), files
    if settings.counter == "transform-with-state":
        assert "_metadata/v2/0" in files and any(
            f.startswith("_stateSchema/default/") for f in files
        )
    else:
        assert "_metadata/metadata" in files
    check_state_source(bootstrap, tmp_path, settings, total)


def check_state_source(
    bootstrap: str, tmp_path: Path, settings: SparkAppSettings, total: int
) -> None:
    """`inspect --state-source` on the checkpoint the runs left: what a user would check."""
    found = inspect(bootstrap, tmp_path, "--state-source")
    state = found["state_source"]
    assert found["state_count"] == total and state["count"] == total, state
    assert state["operator"] == OPERATORS[settings.counter]
    layout = state["layout"]
    assert (layout["kind"], layout["format_version"], layout["changelog"]) == (
        "rocksdb",
        settings.checkpoint_format,
        settings.changelog_checkpointing,
    )
    assert layout["next_batch"] == found["last_committed_batch"] + 1 and layout["next_files"]
    if settings.checkpoint_format == 2:  # the committed attempt's id names the file loaded last
        assert layout["next_files"][-1].split("_")[1].split(".")[0] in layout["state_ids"]
        # Batch 0 ran twice (the negative key killed its first attempt): its first attempt's
        # changelog stays, named by no commit, and is not loaded. The kill -9 may leave one
        # more, when it lands between a batch's changelog and its commit.
        versions = [f.split("_")[0] for f in layout["uncommitted_files"]]
        assert "1" in versions and len(versions) <= 2, layout
        assert not set(layout["uncommitted_files"]) & set(layout["next_files"])
    if settings.changelog_checkpointing:  # the feed's last change is the count now
        assert state["changes"][-1]["count"] == total, state
    else:
        assert state["changes"] == [] and state["notes"][0].startswith("change feed not readable")
