"""manual-offsets' own reasoning, without starting anything: which batch starts the group may
hold after a crash, and which values a new query writes again."""

from __future__ import annotations

import json
from pathlib import Path

from scenarios.catalog.manual_offsets import Resume, _last_batch_starts
from scenarios.checker.verify import ValueRange
from spark_app.offsets import TopicPartition
from tests.scenarios.more_helpers import write_batch

TP0 = TopicPartition("Experience", 0)


def test_the_last_two_planned_batches_start_where_the_ones_before_ended(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    for batch, end in enumerate([5, 9, 14]):
        write_batch(checkpoint, batch, {0: end})
    write_batch(checkpoint, 3, {0: 20}, committed=False)  # planned, killed before its commit
    assert _last_batch_starts(checkpoint, TP0) == [9, 14]


def test_batch_0_starts_at_the_initial_offsets(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    write_batch(checkpoint, 0, {0: 6}, committed=False)
    (checkpoint / "sources" / "0").mkdir(parents=True)
    (checkpoint / "sources" / "0" / "0").write_text("v1\n" + json.dumps({"Experience": {"0": 2}}))
    assert _last_batch_starts(checkpoint, TP0) == [2]


def test_the_replayed_values_run_from_the_group_offset_to_the_highest_written() -> None:
    assert Resume(committed=40, highest=47).replayed == ValueRange(41, 47)
    assert len(Resume(committed=47, highest=47).replayed) == 0
