"""The poison-pill scenario's reading of a crashed app's checkpoint, without Spark."""

from __future__ import annotations

from pathlib import Path

from scenarios.catalog.poison_pill import _stuck_batch
from tests.scenarios.more_helpers import idle_stage, write_batch, write_output


def _crashed(root: Path, pending_end: int = 9, written: int = 6) -> Path:
    stage = idle_stage(root)
    write_batch(stage.folders.checkpoints, 0, {0: 4})
    write_batch(stage.folders.checkpoints, 1, {0: 6})
    write_batch(stage.folders.checkpoints, 2, {0: pending_end}, committed=False)
    write_output(stage.folders.output_log, range(1, written + 1))
    return root


def test_stuck_batch_is_the_pending_one_with_its_range(tmp_path: Path) -> None:
    stuck = _stuck_batch(idle_stage(_crashed(tmp_path)))
    assert stuck.batch_id == 2 and stuck.last_commit == 1
    assert stuck.highest_written == 6
    assert stuck.describe() == (
        'batch 2 pending, offsets {"Experience":{"0":6}} -> {"Experience":{"0":9}}, last commit 1'
    )


def test_the_poison_pills_offset_is_inside_the_pending_range(tmp_path: Path) -> None:
    stuck = _stuck_batch(idle_stage(_crashed(tmp_path)))
    assert stuck.holds_offset(6) and stuck.holds_offset(8)
    assert not stuck.holds_offset(5) and not stuck.holds_offset(9)


def test_same_place_compares_batch_offsets_and_last_commit(tmp_path: Path) -> None:
    one = _stuck_batch(idle_stage(_crashed(tmp_path / "a")))
    same = _stuck_batch(idle_stage(_crashed(tmp_path / "b", written=5)))
    moved = _stuck_batch(idle_stage(_crashed(tmp_path / "c", pending_end=10)))
    assert one.same_place(same)  # the log may differ; the checkpoint says where it is stuck
    assert not one.same_place(moved)


def test_no_pending_batch_holds_nothing(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    write_batch(stage.folders.checkpoints, 0, {0: 4})
    stuck = _stuck_batch(stage)
    assert stuck.batch_id is None and not stuck.holds_offset(2)
    assert stuck.describe() == "no pending batch"
