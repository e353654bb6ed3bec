"""Crash-safe file writes for the Spark app: a reader, or the app after a crash, finds the old
content or the new one, never half of it.

The data goes to a temporary file in the target's folder, is fsynced, renamed over the target
(atomic within one file system), and the folder is fsynced so the rename itself is on disk.
Used for the sink's journal, the source's `sources/0/0` and the class-data archive.

kafka_app/broker/storage/atomic_file.py does the same for the broker: the two apps never import
each other (they are separate programs with one owner per contract), so each keeps one copy.

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
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def _fsync_folder(folder: Path) -> None:
    # A rename is an entry in the folder: until the folder is synced, a power cut may undo it.
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
