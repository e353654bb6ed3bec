"""Crash-safe file writes for the Spark app: a reader, or the app after a crash, finds the old
content or the new one, never half of it.

The data goes to a temporary file in the target's folder, named uniquely and after the writing
process, is fsynced, renamed over the target (atomic within one file system), and the folder is
fsynced so the rename itself is on disk. A writer killed before its rename leaves its temporary
file behind: the next write of the same target removes it (its writer's process is gone).
Used for the sink's journal, the source's `sources/0/0` and the class-data archive.

kafka_app/broker/storage/atomic_file.py gives the broker the same guarantees: the two apps never
import each other (they are separate programs with one owner per contract), so each keeps one
copy, tested alike.

Usage:
    write_atomically(Path("log/streaming-output.log.journal"), b'{"batch_id": 7}')
    created = create_once(checkpoint / "sources" / "0" / "0", data)   # False if it exists
    replace_durably(written_by_the_jvm, archive)
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["write_atomically", "create_once", "replace_durably"]


def write_atomically(path: Path, data: bytes | str) -> None:
    """Replace `path`'s content with `data` (text is written as UTF-8)."""
    replace_durably(_temporary_copy(path, data), path)


def create_once(path: Path, data: bytes | str) -> bool:
    """Write `path` unless it exists: True if this call wrote it, False (nothing changed) if
    it was there. Of two writers racing, exactly one wins: a hard link never replaces a name."""
    temporary = _temporary_copy(path, data)
    try:
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        temporary.unlink(missing_ok=True)
    _fsync_folder(path.parent)
    return True


def replace_durably(source: Path, target: Path) -> None:
    """Move the finished file `source` over `target`, on disk once this returns."""
    with open(source, "rb") as written:
        os.fsync(written.fileno())
    os.replace(source, target)
    _fsync_folder(target.parent)


def _temporary_copy(path: Path, data: bytes | str) -> Path:
    """`data` in a new, fsynced file beside `path` (the same file system, so renames are atomic)."""
    _remove_abandoned_temporaries(path)
    handle, name = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _remove_abandoned_temporaries(path: Path) -> None:
    # Only a dead writer's: a living one (another thread, or a racing create_once in another
    # process) may be about to rename or link its temporary file.
    for temporary in path.parent.glob(f".{path.name}.*.tmp"):
        writer = temporary.name[len(path.name) + 2 :].split(".", 1)[0]
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
