"""The Spark app's crash-safe writes: after a crash the old content is there, whole; what this
process wrote is on disk, folder entry included, when the call returns."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from spark_app.runtime.atomic_file import create_once, replace_durably, write_atomically

REPO = Path(__file__).resolve().parents[3]


# A writer killed at the worst moments, as a kill -9 does: just before the rename, and after
# the rename but before the folder's fsync. Each line replaces one os call in the child.
DEATHS = {
    "before the rename": "os.replace = lambda *args: os._exit(9)",
    "before the folder's fsync": ("real = os.fsync; os.fsync = lambda fd: os._exit(9) "
                                  "if stat.S_ISDIR(os.fstat(fd).st_mode) else real(fd)"),
}
NEW = "new, " * 100_000


def _write_and_die(target: Path, death: str) -> None:
    crash = ("import os, stat, sys; from pathlib import Path; "
             "from spark_app.runtime.atomic_file import write_atomically; "
             f"{death}; write_atomically(Path(sys.argv[1]), 'new, ' * 100_000)")
    died = subprocess.run([sys.executable, "-c", crash, str(target)], cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert died.returncode == 9


@pytest.mark.parametrize("moment", DEATHS)
def test_a_killed_writer_leaves_the_old_or_the_new_content_and_no_temporary_after_the_next_write(
        tmp_path: Path, moment: str) -> None:
    target = tmp_path / "journal"
    write_atomically(target, "old, whole\n")
    _write_and_die(target, DEATHS[moment])
    assert target.read_text() in ("old, whole\n", NEW)
    write_atomically(target, "next\n")
    assert target.read_text() == "next\n" and os.listdir(tmp_path) == ["journal"]


def test_a_killed_writer_before_the_rename_leaves_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "journal"
    write_atomically(target, "old, whole\n")
    _write_and_die(target, DEATHS["before the rename"])
    assert target.read_text() == "old, whole\n"


def test_a_living_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "journal"
    # Another writer of this process (a thread), or a racing create_once, between its write and
    # its rename: removing its file would make its rename fail.
    in_progress = tmp_path / f".journal.{os.getpid()}.abc.tmp"
    in_progress.write_text("half")
    write_atomically(target, "x")
    assert in_progress.exists()


def test_a_failed_write_changes_nothing_and_leaves_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "journal"
    write_atomically(target, b"old")

    def disk_full(handle: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["journal"]


def test_the_folder_is_synced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def recording(handle: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(handle).st_mode) else "file")
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", recording)
    write_atomically(tmp_path / "journal", "x")
    assert synced[-1] == "folder" and "file" in synced


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
