"""The demo's resets keep `git status` clean: a fresh start and the `d` key (the README's hard
reset) empty the checkpoint folder and leave the placeholder the repository tracks."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from scenarios.demo.keys import Command
from scenarios.demo.session import DemoSession
from scenarios.demo.settings import DemoSettings


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A clone's layout: checkpoints/ and log/ tracked through their .gitkeep only."""
    _git(tmp_path, "init", "-q")
    for folder in ("checkpoints", "log"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / ".gitkeep").write_text("")
    (tmp_path / ".gitignore").write_text(
        "checkpoints/*\n!checkpoints/.gitkeep\nlog/*\n!log/.gitkeep\n"
    )
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "layout")
    return tmp_path


def _a_run_was_here(repo: Path) -> None:
    checkpoint = repo / "checkpoints"
    (checkpoint / "offsets").mkdir()
    (checkpoint / "offsets" / "0").write_text("v1\n{}\n{}")
    (checkpoint / ".metadata.crc").write_bytes(b"crc")
    (checkpoint / "metadata").write_text('{"id":"q"}')
    (repo / "log" / "streaming-output.log").write_text("[INFO] [x] [StreamingOutput]: Count = 1\n")
    (repo / "log" / "crashed-on.txt").write_text("Experience:1\n")


def _settings(repo: Path, port: int) -> DemoSettings:
    return DemoSettings(
        port=port, log_dir=repo / "log", checkpoint_dir=repo / "checkpoints", fresh=True
    )


def test_the_d_key_empties_the_checkpoint_and_keeps_git_status_clean(
    repo: Path, free_port: int
) -> None:
    _a_run_was_here(repo)
    session = DemoSession(_settings(repo, free_port))
    assert session.handle(Command.DELETE_CHECKPOINT)
    assert [p.name for p in (repo / "checkpoints").iterdir()] == [".gitkeep"]
    assert _git(repo, "status", "--porcelain") == ""


def test_a_fresh_start_keeps_git_status_clean(repo: Path, free_port: int) -> None:
    _a_run_was_here(repo)
    with DemoSession(_settings(repo, free_port)) as session:
        assert any("fresh start: removed" in event for event in session.state.events)
    assert [p.name for p in (repo / "checkpoints").iterdir()] == [".gitkeep"]
    assert not (repo / "log" / "streaming-output.log").exists()
    # The new topic counts from 1 again: a negative key on value 1 must crash the app again.
    assert not (repo / "log" / "crashed-on.txt").exists()
    # The producer's own log is ignored, like a user's; nothing tracked changed.
    assert _git(repo, "status", "--porcelain") == ""
