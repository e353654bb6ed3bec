"""What only the Spark app's crash-safe writes do: create a file once of racing writers, move a
finished file into place, and leave a living writer's temporary file alone (two Spark processes
may race on `sources/0/0`). The guarantees both apps' copies share are in
tests/test_atomic_files.py."""

from __future__ import annotations

import os
from pathlib import Path

from spark_app.runtime.atomic_file import create_once, replace_durably, write_atomically


def test_a_living_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "journal"
    # Another writer of this process (a thread), or a racing create_once, between its write and
    # its rename: removing its file would make its rename fail.
    in_progress = tmp_path / f".journal.{os.getpid()}.abc.tmp"
    in_progress.write_text("half")
    write_atomically(target, "x")
    assert in_progress.exists()


def test_create_once_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "0"
    assert create_once(target, b"first") is True
    assert create_once(target, b"second") is False
    assert target.read_bytes() == b"first" and os.listdir(tmp_path) == ["0"]


def test_a_finished_file_replaces_the_target(tmp_path: Path) -> None:
    written, target = tmp_path / "archive.123.tmp", tmp_path / "archive"
    written.write_bytes(b"new archive")
    target.write_bytes(b"old archive")
    replace_durably(written, target)
    assert target.read_bytes() == b"new archive" and not written.exists()
