"""Committed group offsets: fetch what was committed, across restarts and a kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kafka_app.broker.groups import offsets as group_offsets
from kafka_app.broker.groups.offsets import CommittedOffsets

REPO = Path(__file__).resolve().parents[4]


def test_commit_fetch_and_committed(tmp_path: Path) -> None:
    with CommittedOffsets(tmp_path / "offsets.jsonl") as offsets:
        assert offsets.fetch("g", "t", 0) is None
        offsets.commit("g", "t", 0, 5)
        offsets.commit("g", "t", 0, 9, "meta")
        offsets.commit("g", "t", 1, 3)
        offsets.commit("other", "t", 0, 1)
        assert offsets.fetch("g", "t", 0) == (9, "meta")
        assert offsets.committed("g") == {("t", 0): (9, "meta"), ("t", 1): (3, "")}
        assert offsets.committed("nobody") == {}


def test_offsets_survive_close_and_reopen(tmp_path: Path) -> None:
    path = tmp_path / "offsets.jsonl"
    with CommittedOffsets(path) as offsets:
        offsets.commit("g", "t", 0, 7, "ünïcode")
    with CommittedOffsets(path) as offsets:
        assert offsets.fetch("g", "t", 0) == (7, "ünïcode")


def test_a_torn_last_line_is_cut_off(tmp_path: Path) -> None:
    path = tmp_path / "offsets.jsonl"
    with CommittedOffsets(path) as offsets:
        offsets.commit("g", "t", 0, 7)
    good = path.read_bytes()
    with open(path, "ab") as file:
        file.write(b'{"g":"g","t":"t","p":0,"o":8')  # a crash in the middle of the write
    with CommittedOffsets(path) as offsets:
        assert offsets.fetch("g", "t", 0) == (7, "")
        offsets.commit("g", "t", 0, 9)
    assert path.read_bytes().startswith(good)
    with CommittedOffsets(path) as offsets:
        assert offsets.fetch("g", "t", 0) == (9, "")


def test_compaction_keeps_only_the_latest_offsets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(group_offsets, "_COMPACT_MIN_LINES", 10)
    path = tmp_path / "offsets.jsonl"
    with CommittedOffsets(path) as offsets:
        for offset in range(25):
            offsets.commit("g", "t", offset % 2, offset)
    assert len(path.read_text().splitlines()) < 25
    with CommittedOffsets(path) as offsets:
        assert offsets.committed("g") == {("t", 0): (24, ""), ("t", 1): (23, "")}


_COMMITTER = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from kafka_app.broker.groups.offsets import CommittedOffsets
    offsets = CommittedOffsets(Path(sys.argv[1]))
    for offset in range(1, 501):
        offsets.commit("counter", "events", offset % 3, offset)
    os.kill(os.getpid(), signal.SIGKILL)  # no close, no flush, no atexit
""")


def test_commits_survive_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "offsets.jsonl"
    result = subprocess.run(
        [sys.executable, "-c", _COMMITTER, str(path)],
        cwd=REPO,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert result.returncode == -signal.SIGKILL
    with CommittedOffsets(path) as offsets:
        assert offsets.committed("counter") == {
            ("events", 0): (498, ""),
            ("events", 1): (499, ""),
            ("events", 2): (500, ""),
        }
