"""Crash-safe rewriting of small metadata files (topic list, log start offsets, offset snapshots):
a reader, or the broker after a crash, finds the old content or the new one, never half of it.

The text goes to a temporary file in the target's folder under a unique name, is fsynced,
renamed over the target (atomic within one file system), and the folder is fsynced so the rename
itself is on disk. A broker killed before its rename leaves its temporary file behind: the next
write of the same target removes it. The broker writes each of these files from its one storage
thread (storage is single-threaded by design), so a temporary found before a write is a dead
writer's. (The Spark app's copy checks the writer's pid instead: two Spark processes may race.)

spark_app/runtime/atomic_file.py gives the Spark app the same guarantees: the two apps never
import each other (they are separate programs with one owner per contract), so each keeps one
copy, tested alike.

Usage: `write_atomically(folder / "topics.json", json.dumps(topics))`
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, text: str) -> None:
    """Replace `path`'s content with `text`, on disk (folder entry included) once this returns."""
    _remove_abandoned_temporaries(path)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        # Disk full: the old file is untouched; do not leave half a new one beside it.
        temporary.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _remove_abandoned_temporaries(path: Path) -> None:
    for temporary in path.parent.glob(f".{path.name}.*.tmp"):
        temporary.unlink(missing_ok=True)


def _fsync_folder(folder: Path) -> None:
    # A rename is an entry in the folder: until the folder is synced, a power cut may undo it.
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
