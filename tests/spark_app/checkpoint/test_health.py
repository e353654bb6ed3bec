"""The files a restart needs, on crafted folders shaped like what Spark writes."""

from __future__ import annotations

from pathlib import Path

from spark_app.checkpoint.health import restart_blockers, spark_checks_metadata
from spark_app.checkpoint.inspect import inspect_checkpoint, render_text
from tests.spark_app.checkpoint.test_reader import make_checkpoint


def with_state(root: Path, *files: str) -> Path:
    """Replace the state files make_checkpoint wrote with exactly `files`."""
    store = root / "state" / "0" / "0"
    for old in store.iterdir():
        old.unlink()
    for name in files:
        (store / name).write_bytes(b"")
    return root


def test_an_intact_checkpoint_has_no_blockers(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9, 12], committed=3)
    assert restart_blockers(with_state(tmp_path, "1.delta", "2.delta", "3.delta"), "4.3.0") == []


def test_missing_metadata_fails_on_spark_4_2_and_later_only(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    with_state(tmp_path, "1.delta", "2.delta")
    (tmp_path / "metadata").unlink()
    [blocker] = restart_blockers(tmp_path, "4.3.0")
    assert blocker.condition == "STREAMING_CHECKPOINT_MISSING_METADATA_FILE"
    assert "metadata" in blocker.missing
    assert restart_blockers(tmp_path, "4.1.1") == []
    assert spark_checks_metadata("4.2.0") and not spark_checks_metadata("4.0.5")


def test_a_lost_delta_after_the_last_snapshot_is_named(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9, 12, 15], committed=4)  # state version 4 is needed
    with_state(tmp_path, "1.delta", "2.delta", "2.snapshot", "4.delta")
    [blocker] = restart_blockers(tmp_path, "4.3.0")
    assert blocker.condition == "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS"
    assert blocker.missing.endswith("state/0/0/3.delta")


def test_deltas_before_a_snapshot_are_not_needed(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9, 12], committed=3)
    assert restart_blockers(with_state(tmp_path, "2.snapshot", "3.delta"), "4.3.0") == []


def test_inspect_says_the_restart_fails_without_asking_kafka(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    with_state(tmp_path, "1.delta", "2.delta")
    (tmp_path / "metadata").unlink()
    report = inspect_checkpoint(tmp_path, None, with_state=False)
    assert report.restart_will_fail is True
    text = "\n".join(render_text(report))
    assert "a restart will fail with STREAMING_CHECKPOINT_MISSING_METADATA_FILE" in text
    assert "verdict: a restart will FAIL (Spark cannot open this checkpoint)" in text
    assert "a restart will continue" not in text
