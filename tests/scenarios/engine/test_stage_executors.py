"""The moment executor-loss and worker-loss kill in: a state file while Spark writes it, found in
the checkpoint wherever it is (here a local folder; HDFS's listing runs in their nightly tests)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from scenarios.engine.stage.executors import shared_checkpoint_line, wait_for_state_write
from tests.scenarios.more_helpers import idle_stage


def test_the_wait_ends_when_a_delta_file_is_being_written_and_not_before(tmp_path: Path) -> None:
    stage = idle_stage(tmp_path)
    state = stage.folders.checkpoints / "state" / "0" / "0"
    state.mkdir(parents=True)
    (state / "1.delta").write_bytes(b"")  # written: not the moment
    (state / ".1.delta.crc").write_bytes(b"")
    writing = state / ".2.delta.0b6f-77aa.tmp"
    threading.Timer(0.5, writing.write_bytes, args=(b"",)).start()
    started = time.monotonic()
    wait_for_state_write(stage, timeout=10)
    assert writing.exists() and time.monotonic() - started >= 0.4


def test_the_narration_says_why_a_local_checkpoint_works_on_this_cluster(tmp_path: Path) -> None:
    line = shared_checkpoint_line(idle_stage(tmp_path))
    assert "local folder" in line and "share its disk" in line
