"""The offset-log-ahead guard's pure parts, without Spark: the newest commit deleted leaves the
offset log ahead, and the outcome held per line (a restart that goes on everywhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_51682 import BUG, uncommit_newest
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError
from spark_app.lines.known_bug_table import RAN_ON, judge


def _checkpoint(tmp: Path, offsets: int, commits: int) -> Path:
    for folder, last in (("offsets", offsets), ("commits", commits)):
        (tmp / folder).mkdir(parents=True)
        for batch in range(last + 1):
            (tmp / folder / str(batch)).write_text('v1\n{"batchWatermarkMs":0}\n{}')
            (tmp / folder / f".{batch}.crc").write_bytes(b"")
    return tmp


def test_the_newest_commit_goes_when_the_offset_log_ends_at_it(tmp_path: Path) -> None:
    cp = _checkpoint(tmp_path, offsets=2, commits=2)
    said = uncommit_newest(cp)
    assert read_checkpoint(cp).commit_ids == (0, 1)
    assert not (cp / "commits" / ".2.crc").exists()
    assert "deleted commits/2" in said


def test_a_batch_planned_already_is_left_as_the_stop_left_it(tmp_path: Path) -> None:
    # Deleting a commit then would leave the offset log two ahead, which Spark never does.
    cp = _checkpoint(tmp_path, offsets=3, commits=2)
    said = uncommit_newest(cp)
    assert read_checkpoint(cp).commit_ids == (0, 1, 2)
    assert said.startswith("nothing deleted") and "batch 3 planned" in said


def test_nothing_committed_is_refused(tmp_path: Path) -> None:
    (tmp_path / "offsets").mkdir()
    with pytest.raises(CheckpointError, match="no commit"):
        uncommit_newest(tmp_path)


@pytest.mark.parametrize("version", ["4.0.0", "4.1.1", "4.2.0"])
def test_the_guard_holds_where_the_restart_goes_on(version: str) -> None:
    assert judge(BUG, version, RAN_ON).held
    assert not judge(BUG, version, "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED").held
