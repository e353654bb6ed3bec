"""Both apps' crash-safe writes keep the same guarantees: after a writer is killed the file holds
the old content or the new, whole; what a call wrote is on disk, the folder's entry included,
when it returns; no temporary file outlives the next write.

The two apps never import each other, so each has its copy (spark_app/runtime/atomic_file.py,
kafka_app/broker/storage/atomic_file.py); every case here runs on both. What only the Spark
app's copy offers (create_once, replace_durably) is in tests/spark_app/runtime/test_atomic_file.py.
"""

from __future__ import annotations

import importlib
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
WRITERS = ("spark_app.runtime.atomic_file", "kafka_app.broker.storage.atomic_file")

# A writer killed at the worst moments, as a kill -9 does: just before the rename, and after
# the rename but before the folder's fsync. Each line replaces one os call in the child.
DEATHS = {
    "before the rename": "os.replace = lambda *args: os._exit(9)",
    "before the folder's fsync": (
        "real = os.fsync; os.fsync = lambda fd: os._exit(9) "
        "if stat.S_ISDIR(os.fstat(fd).st_mode) else real(fd)"
    ),
}
NEW = "new, " * 100_000  # large enough that a half-written file would show


def _write_atomically(module: str) -> Callable[[Path, str], None]:
    return importlib.import_module(module).write_atomically  # type: ignore[no-any-return]


def _write_and_die(module: str, target: Path, death: str) -> None:
    crash = (
        f"import os, stat, sys; from pathlib import Path; from {module} import write_atomically; "
        f"{death}; write_atomically(Path(sys.argv[1]), 'new, ' * 100_000)"
    )
    died = subprocess.run(
        [sys.executable, "-c", crash, str(target)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert died.returncode == 9


@pytest.mark.parametrize("moment", DEATHS)
@pytest.mark.parametrize("module", WRITERS)
def test_a_killed_writer_leaves_the_old_or_the_new_content_and_no_temporary_after_the_next_write(
    tmp_path: Path, module: str, moment: str
) -> None:
    write, target = _write_atomically(module), tmp_path / "topics.json"
    write(target, "old, whole\n")
    _write_and_die(module, target, DEATHS[moment])
    assert target.read_text() in ("old, whole\n", NEW)
    write(target, "next\n")
    assert target.read_text() == "next\n" and os.listdir(tmp_path) == ["topics.json"]


@pytest.mark.parametrize("module", WRITERS)
def test_a_writer_killed_before_the_rename_leaves_the_old_content(
    tmp_path: Path, module: str
) -> None:
    write, target = _write_atomically(module), tmp_path / "journal"
    write(target, "old, whole\n")
    _write_and_die(module, target, DEATHS["before the rename"])
    assert target.read_text() == "old, whole\n"


@pytest.mark.parametrize("module", WRITERS)
def test_a_failed_write_changes_nothing_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    write, target = _write_atomically(module), tmp_path / "journal"
    write(target, "old")

    def disk_full(handle: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write(target, "new")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["journal"]


@pytest.mark.parametrize("module", WRITERS)
def test_the_file_then_the_folder_is_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str
) -> None:
    synced: list[str] = []
    real_fsync = os.fsync

    def recording(handle: int) -> None:
        synced.append("folder" if stat.S_ISDIR(os.fstat(handle).st_mode) else "file")
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", recording)
    _write_atomically(module)(tmp_path / "journal", "x")
    assert synced[-1] == "folder" and set(synced[:-1]) == {"file"}  # the rename, then its entry
