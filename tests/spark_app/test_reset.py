"""`python -m spark_app reset`: the next run starts clean, and `verify` reads it alone."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from launch.waiting import wait_until
from scenarios.checker.verify import verify_file
from spark_app.cli import run_cli
from spark_app.lines.output_line import OutputRow
from spark_app.query.negative_key import CRASH_FILE_NAME, NegativeKeyPolicy
from spark_app.reset import aside_name, running_apps
from spark_app.settings import SparkAppSettings
from tests.scenarios.checker.test_verify import log_of


def _leftovers(checkpoint: Path, log: Path) -> None:
    """What a demo run leaves: Spark's checkpoint files, hidden ones included, and its log."""
    for folder in ("offsets", "commits", "state/0/0", "sources/0"):
        (checkpoint / folder).mkdir(parents=True)
        (checkpoint / folder / "0").write_text("v1\n")
    (checkpoint / "metadata").write_text('{"id":"q"}\n')
    (checkpoint / ".metadata.crc").write_bytes(b"crc")
    (checkpoint / ".gitkeep").write_bytes(b"")
    log.mkdir(parents=True)
    (log / "streaming-output.log").write_text("".join(log_of([(1, 1), (2, 2), (3, 1)])))
    (log / "streaming-output.log.journal").write_text('{"query_id": "q", "batch_id": 3}')


def test_reset_empties_the_checkpoint_and_moves_the_output_log_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "cp"),
        log_dir=tmp_path / "lg",
        sink="at-least-once",
    )
    _leftovers(settings.checkpoint.folder, settings.log_dir)
    assert not verify_file(settings.output_file).ok  # the demo's run and the next one, mixed

    # The app's own command line, as the scenarios and the demo build it, is accepted.
    assert run_cli(["reset", *settings.to_argv()]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [p.name for p in settings.checkpoint.folder.iterdir()] == [".gitkeep"]
    moved = sorted(p.name for p in settings.log_dir.iterdir())
    assert (
        len(moved) == 2 and moved[0].startswith("streaming-output.2") and moved[0].endswith(".log")
    )
    assert moved[1] == moved[0] + ".journal"
    assert len(lines) == 3
    assert ".metadata.crc" in lines[0] and "offsets/" in lines[0] and ".gitkeep" not in lines[0]
    assert str(settings.output_file) in lines[1] and moved[0] in lines[1]
    assert moved[1] in lines[2]

    assert run_cli(["reset", *settings.to_argv()]) == 0  # nothing left: says so, changes nothing
    again = capsys.readouterr().out.splitlines()
    assert again == [
        f"{settings.checkpoint.folder} is empty already",
        f"no {settings.output_file} to move aside",
    ]


def test_reset_moves_the_crash_once_record_aside_so_a_negative_key_crashes_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After a reset, a negative key on a value the last run crashed on must crash the app: the
    record left in log/ once made the next run process it quietly."""
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "cp"), log_dir=tmp_path / "lg"
    )
    _leftovers(settings.checkpoint.folder, settings.log_dir)
    (settings.log_dir / CRASH_FILE_NAME).write_text("Experience:24\n")
    negative = OutputRow("Experience", "-24", "24", 24, 0, 23)
    policy = NegativeKeyPolicy("crash-once", settings.log_dir, None)
    assert policy.first_to_crash_on([negative]) is None  # crashed on it already

    assert run_cli(["reset", *settings.to_argv()]) == 0
    lines = capsys.readouterr().out.splitlines()

    assert policy.first_to_crash_on([negative]) == 0  # the next run crashes on it
    aside = sorted(settings.log_dir.glob("crashed-on.2*.txt"))
    assert len(aside) == 1 and aside[0].read_text() == "Experience:24\n"
    assert f"moved {settings.log_dir / CRASH_FILE_NAME} to {aside[0].name}" in lines[-1]


def test_reset_refuses_while_an_app_runs_on_that_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint, log = tmp_path / "cp", tmp_path / "lg"
    _leftovers(checkpoint, log)
    # A process whose command line is the app's, run from tmp_path with a relative folder.
    app = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time; time.sleep(60)",
            "-m",
            "spark_app",
            "--sink",
            "at-least-once",
            "--checkpoint-dir",
            "cp",
        ],
        cwd=tmp_path,
    )
    try:
        # Right after the fork its command line is still ours: wait for the exec.
        wait_until(
            lambda: running_apps(checkpoint) == [app.pid],
            timeout=10,
            poll=0.05,
            what="the fake app's command line",
        )
        assert running_apps(tmp_path / "other") == []
        assert run_cli(["reset", "--checkpoint-dir", str(checkpoint), "--log-dir", str(log)]) == 1
    finally:
        app.kill()
        app.wait()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "APP_RUNNING" in err[0] and str(app.pid) in err[0], err
    assert (checkpoint / ".metadata.crc").exists() and (log / "streaming-output.log").exists()


def test_a_reset_within_the_same_second_does_not_overwrite_the_last_one(tmp_path: Path) -> None:
    log = tmp_path / "streaming-output.log"
    now = datetime(2026, 11, 25, 18, 30, 12)
    first = aside_name(log, now)
    assert first.name == "streaming-output.20261125-183012.log"
    first.write_text("old run\n")
    assert aside_name(log, now).name == "streaming-output.20261125-183012-2.log"


def test_reset_refuses_a_folder_that_is_not_a_checkpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mistyped --checkpoint-dir (a home folder, the repository) must not be emptied."""
    checkpoint, log = tmp_path / "cp", tmp_path / "lg"
    _leftovers(checkpoint, log)
    (checkpoint / ".metadata.4f1c.tmp").write_bytes(b"")  # a write a kill -9 cut short: Spark's
    (checkpoint / "notes.txt").write_text("mine\n")
    assert run_cli(["reset", "--checkpoint-dir", str(checkpoint), "--log-dir", str(log)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "NOT_A_CHECKPOINT" in err[0] and "notes.txt" in err[0], err
    assert ".tmp" not in err[0]
    assert (checkpoint / "offsets").exists() and (log / "streaming-output.log").exists()
