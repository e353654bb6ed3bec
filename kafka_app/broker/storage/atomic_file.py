"""Crash-safe rewriting of small metadata files (topic list, log start offsets, offset snapshots):
a reader, or the broker after a crash, finds the old content or the new one, never half of it.

The text goes to a temporary file in the target's folder, named uniquely and after the writing
process, is fsynced, renamed over the target (atomic within one file system), and the folder is
fsynced so the rename itself is on disk. A writer killed before its rename leaves its temporary
file behind: the next write of the same target removes it (its writer's process is gone).

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
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.",
                                    suffix=".tmp")
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
    # Only a dead writer's: a living one (another thread) may be about to rename its own.
    for temporary in path.parent.glob(f".{path.name}.*.tmp"):
        writer = temporary.name[len(path.name) + 2:].split(".", 1)[0]
        if writer.isdigit() and not _alive(int(writer)):
            temporary.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive, and not ours to judge
    return True


def _fsync_folder(folder: Path) -> None:
    # A rename is an entry in the folder: until the folder is synced, a power cut may undo it.
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
