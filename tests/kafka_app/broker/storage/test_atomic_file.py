"""The broker's crash-safe metadata writes: after a crash the old content is there, whole, or
the new; what this process wrote is on disk, folder entry included, when the call returns; no
temporary file outlives the next write. The same cases as the Spark app's copy
(tests/spark_app/runtime/test_atomic_file.py): the two copies keep the same guarantees."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_app.broker.storage.atomic_file import write_atomically

REPO = Path(__file__).resolve().parents[4]

# A writer killed at the worst moments, as a kill -9 does: just before the rename, and after
# the rename but before the folder's fsync. Each line replaces one os call in the child.
DEATHS = {
    "before the rename": "os.replace = lambda *args: os._exit(9)",
    "before the folder's fsync": ("real = os.fsync; os.fsync = lambda fd: os._exit(9) "
                                  "if stat.S_ISDIR(os.fstat(fd).st_mode) else real(fd)"),
}
NEW = "42\n" * 100_000


def _write_and_die(target: Path, death: str) -> None:
    crash = ("import os, stat, sys; from pathlib import Path; "
             "from kafka_app.broker.storage.atomic_file import write_atomically; "
             f"{death}; write_atomically(Path(sys.argv[1]), '42\\n' * 100_000)")
    died = subprocess.run([sys.executable, "-c", crash, str(target)], cwd=REPO,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert died.returncode == 9


@pytest.mark.parametrize("moment", DEATHS)
def test_a_killed_writer_leaves_the_old_or_the_new_content_and_no_temporary_after_the_next_write(
        tmp_path: Path, moment: str) -> None:
    target = tmp_path / "log-start-offset-checkpoint"
    write_atomically(target, "7\n")
    _write_and_die(target, DEATHS[moment])
    assert target.read_text() in ("7\n", NEW)
    write_atomically(target, "8\n")
    assert target.read_text() == "8\n" and os.listdir(tmp_path) == [target.name]


def test_a_killed_writer_before_the_rename_leaves_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "topics.json"
    write_atomically(target, "{}\n")
    _write_and_die(target, DEATHS["before the rename"])
    assert target.read_text() == "{}\n"


def test_a_failed_write_changes_nothing_and_leaves_no_temporary_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "topics.json"
    write_atomically(target, "old")

    def disk_full(handle: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write_atomically(target, "new")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["topics.json"]


def test_the_folder_is_synced_after_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def recording(handle: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(handle).st_mode) else "file")
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", recording)
    write_atomically(tmp_path / "topics.json", "{}")
    assert synced == ["file", "folder"]


def test_a_living_writers_temporary_file_is_left_alone(tmp_path: Path) -> None:
    # Another thread of this broker between its write and its rename: removing its file would
    # make its rename fail.
    in_progress = tmp_path / f".topics.json.{os.getpid()}.abc.tmp"
    in_progress.write_text("half")
    write_atomically(tmp_path / "topics.json", "{}")
    assert in_progress.exists()
