"""Checkpoint files torn by a crash of the machine: what the reader, the health check, inspect and
the app's one line say, on folders shaped like what storage-outage's run left (no Spark)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.checkpoint.health import restart_blockers
from spark_app.checkpoint.inspect import inspect_checkpoint, render_text
from spark_app.checkpoint.lz4_block import decompress, ends_cleanly
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.torn import repair, torn_file_error
from spark_app.errors import CheckpointError, TornFileError, error_in_text, unwrap
from spark_app.failures import explain_failure
from spark_app.settings import SparkAppSettings
from tests.spark_app.checkpoint.test_reader import make_checkpoint

# state/0/0/1.delta as Spark 4.2.0 wrote it in storage-outage's run: one lz4 block holding the
# count's key and value, then the end mark.
DELTA = bytes.fromhex(
    "4c5a34426c6f636b25220000003c0000009f7bf0075e0000001000010014201300001d00000400040200c019"
    "00000000000000ffffffff4c5a34426c6f636b15000000000000000000000000"
)


def test_the_token_round_trips_through_a_line() -> None:
    error = torn_file_error(Path("cp/offsets/7"), "is empty")
    assert isinstance(error, CheckpointError)
    again = error_in_text(f"spark_app: {error}")
    assert type(again) is TornFileError and str(again) == str(error)
    wrapped = RuntimeError(f"Traceback ...\nspark_app.errors.TornFileError: {error}\n")
    assert type(unwrap(wrapped)) is TornFileError


def test_an_empty_newest_plan_is_deleted_and_planned_again(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    (tmp_path / "offsets" / "2").write_bytes(b"")
    with pytest.raises(
        TornFileError,
        match=r"offsets/2 is empty: .*Batch 2 never ran \(no "
        r"commits/2\): delete offsets/2 and offsets/\.2\.crc",
    ):
        read_checkpoint(tmp_path)


def test_zero_bytes_are_empty_too(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    (tmp_path / "offsets" / "2").write_bytes(b"\x00" * 64)  # what some file systems show
    with pytest.raises(TornFileError, match="is empty"):
        read_checkpoint(tmp_path)


def test_a_half_commit_is_named_by_the_reader_and_inspect(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    (tmp_path / "commits" / "1").write_text('v1\n{"nextBatch')
    with pytest.raises(
        TornFileError,
        match=r"commits/1 holds a line that is not JSON .*Batch 1 "
        r"ran and wrote its output: delete commits/1",
    ):
        inspect_checkpoint(tmp_path, None, with_state=False)


def test_a_commit_with_its_version_line_only_is_torn(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    (tmp_path / "commits" / "1").write_text("v1\n")
    with pytest.raises(TornFileError, match="no metadata"):
        read_checkpoint(tmp_path)


def test_an_older_torn_file_is_restored_or_started_over(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, [5, 9, 12], committed=3)
    assert repair(tmp_path / "commits" / "0").startswith("Restore it from a copy")
    assert repair(tmp_path / "offsets" / "2").startswith("Restore it")  # committed: it ran


def test_an_lz4_stream_cut_short_does_not_end_cleanly() -> None:
    assert ends_cleanly(DELTA) is True and decompress(DELTA)
    assert ends_cleanly(DELTA[: len(DELTA) // 2]) is False
    assert ends_cleanly(DELTA[:-21]) is False  # every block, but not the end mark
    assert ends_cleanly(b"") is None and ends_cleanly(b"\x00snappy") is None


def _torn_state(root: Path) -> Path:
    make_checkpoint(root, [5, 9, 12], committed=3)
    store = root / "state" / "0" / "0"
    for version in (1, 2, 3):
        (store / f"{version}.delta").write_bytes(DELTA)
    (store / "3.delta").write_bytes(DELTA[:38])
    return store / "3.delta"


def test_a_torn_state_delta_blocks_the_restart_with_its_repair(tmp_path: Path) -> None:
    torn = _torn_state(tmp_path)
    [blocker] = restart_blockers(tmp_path, "4.2.0")
    assert blocker.condition == "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"
    assert blocker.missing == str(torn)
    assert "Run batch 2 again: delete 3.delta, commits/2 (each" in blocker.remedy
    lines = render_text(inspect_checkpoint(tmp_path, None, with_state=True))
    assert "  verdict: a restart will FAIL (Spark cannot open this checkpoint)" in lines
    assert any("3.delta is cut short" in line for line in lines)


def test_the_repair_lists_the_plans_made_after_the_torn_batch(tmp_path: Path) -> None:
    _torn_state(tmp_path)
    # The failed restart planned batch 3 before its first batch met the torn state.
    (tmp_path / "offsets" / "3").write_text((tmp_path / "offsets" / "2").read_text())
    [blocker] = restart_blockers(tmp_path, "4.2.0")
    assert "delete 3.delta, commits/2, offsets/3 (each with its .crc)" in blocker.remedy


# Spark 4.2.0's words, from storage-outage's runs and a rate-source query on a torn checkpoint.
_SPARK_SAID = {
    "empty offsets": "[STREAM_FAILED] Query [id = a, runId = b] terminated with exception: Failed "
    "to read log file file:{cp}/offsets/2. Incomplete log file SQLSTATE: XXKST",
    "half commit under its .crc": "terminated with exception: Checksum error: file:{cp}/commits/1 "
    "at 0 exp: -215302179 got: -653003750 SQLSTATE: XXKST",
    "empty commit": "terminated with exception: Failed to read log file file:{cp}/commits/1. "
    "Incomplete log file in the offset commit log SQLSTATE: XXKST",
}


@pytest.mark.parametrize("case", sorted(_SPARK_SAID))
def test_spark_s_words_for_a_torn_log_file_become_the_line(tmp_path: Path, case: str) -> None:
    make_checkpoint(tmp_path, [5, 9], committed=2)
    settings = SparkAppSettings(checkpoint=CheckpointPlace(folder=tmp_path))
    error = explain_failure(RuntimeError(_SPARK_SAID[case].format(cp=tmp_path)), settings)
    assert isinstance(error, TornFileError)
    assert f"{tmp_path}/" in str(error) and "delete" in str(error)


def test_spark_s_state_condition_with_a_torn_delta_names_the_file(tmp_path: Path) -> None:
    torn = _torn_state(tmp_path)
    settings = SparkAppSettings(checkpoint=CheckpointPlace(folder=tmp_path))
    said = (
        "[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] An error occurred during loading state. "
        "SQLSTATE: 58030\nCaused by: org.apache.hadoop.fs.ChecksumException: Checksum error: "
        f"file:{torn} at 0 exp: 1 got: 2"
    )
    error = explain_failure(RuntimeError(said), settings)
    assert isinstance(error, TornFileError)
    assert str(error).startswith(f"{TornFileError.token}: [CANNOT_LOAD_STATE_STORE.UNCATEGORIZED]")
    assert f"[playground: {torn} is cut short" in str(error) and "commits/2" in str(error)
