"""The verdict and checkpoint lines, read from real files like the apps write them."""

from __future__ import annotations

import json
from pathlib import Path

from scenarios.demo.readings import read_checkpoint_view, read_verdict


def _output_log(path: Path, pairs: list[tuple[int, int]]) -> Path:
    lines = []
    for count, value in pairs:
        stamp = "[INFO] [2026-11-21 18:00:00,000] [StreamingOutput]: "
        lines += [f"{stamp}Count = {count}", f"{stamp}Experience: {value} -> {value}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _batch(checkpoint: Path, batch_id: int, end: int, committed: bool) -> None:
    (checkpoint / "offsets").mkdir(parents=True, exist_ok=True)
    (checkpoint / "commits").mkdir(parents=True, exist_ok=True)
    meta = {"batchWatermarkMs": 0, "batchTimestampMs": 1, "conf": {}}
    (checkpoint / "offsets" / str(batch_id)).write_text(
        f"v1\n{json.dumps(meta)}\n{json.dumps({'Experience': {'0': end}})}"
    )
    if committed:
        (checkpoint / "commits" / str(batch_id)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def test_verdict_of_a_clean_log(tmp_path: Path) -> None:
    verdict = read_verdict(_output_log(tmp_path / "out.log", [(n, n) for n in range(1, 6)]))
    assert verdict.ok is True
    assert verdict.headline.startswith("every message exactly once: 5 of 1..5 seen")
    assert verdict.final_count == 5


def test_verdict_names_missing_values_and_a_count_reset(tmp_path: Path) -> None:
    pairs = [(1, 1), (2, 2), (1, 6), (2, 7)]  # hard reset while 3..5 aged out
    verdict = read_verdict(_output_log(tmp_path / "out.log", pairs))
    assert verdict.ok is False
    assert "missing 3 (3..5)" in verdict.headline
    assert "count reset at value 6" in verdict.headline
    assert any("missing 3 value(s): 3..5" in line for line in verdict.details)


def test_verdict_without_a_log(tmp_path: Path) -> None:
    verdict = read_verdict(tmp_path / "absent.log")
    assert verdict.ok is None and "no output log yet" in verdict.headline


def test_checkpoint_absent_committed_and_pending(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    assert "the next start is a new query" in read_checkpoint_view(checkpoint).summary
    _batch(checkpoint, 0, 5, committed=True)
    view = read_checkpoint_view(checkpoint, kafka_earliest=0)
    assert view.last_batch == 0
    assert view.summary == (
        "last committed batch 0: a restart resumes at Experience-0@5; still in Kafka (earliest 0)"
    )
    _batch(checkpoint, 1, 9, committed=False)
    view = read_checkpoint_view(checkpoint, kafka_earliest=7)
    assert view.summary.startswith(
        "batch 1 planned, not committed: a restart replays it from Experience-0@5"
    )
    assert "AGED OUT of Kafka (earliest 7)" in view.summary


def test_damaged_checkpoint_is_reported_not_raised(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    (checkpoint / "offsets").mkdir(parents=True)
    (checkpoint / "offsets" / "0").write_text("garbage")
    assert read_checkpoint_view(checkpoint).summary.startswith("unreadable right now")


def test_the_live_pages_row_of_batches_and_the_state_a_restart_loads(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    (checkpoint / "sources" / "0").mkdir(parents=True)
    (checkpoint / "sources" / "0" / "0").write_text('v1\n{"Experience":{"0":0}}')
    for batch_id, end in enumerate([3, 5, 8, 9]):
        _batch(checkpoint, batch_id, end, committed=batch_id < 3)
    store = checkpoint / "state" / "0" / "0"
    store.mkdir(parents=True)
    for name in ("1.delta", "2.delta", "2.snapshot", "3.delta", "4.delta", ".4.delta.crc"):
        (store / name).write_bytes(b"")
    view = read_checkpoint_view(checkpoint, row=3)
    assert [(b.batch_id, b.range_text(), b.committed) for b in view.batches] == [
        (1, "[3, 5)", True),
        (2, "[5, 8)", True),
        (3, "[8, 9)", False),  # planned, no commit: the batch a restart replays
    ]
    assert view.batches[-1].messages == 1
    assert view.committed_total == 8 and view.resume_at == (("Experience-0", 8),)
    assert view.state is not None
    assert view.state.versions == (1, 2, 3, 4) and view.state.snapshots == (2,)
    # Batch 2 committed wrote version 3; a restart loads it, from snapshot 2 and delta 3.
    assert view.state.restart_loads == 3 and view.state.loaded_from == 2
    assert read_checkpoint_view(checkpoint).batches == ()  # the terminal's screen asks for none


def test_a_batch_whose_predecessor_is_gone_has_no_known_start(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoints"
    for batch_id, end in ((5, 40), (6, 42)):  # Spark cleaned the older ones away
        _batch(checkpoint, batch_id, end, committed=True)
    view = read_checkpoint_view(checkpoint, row=8)
    assert [b.range_text() for b in view.batches] == ["[?, 40)", "[40, 42)"]
    assert view.batches[0].messages is None
