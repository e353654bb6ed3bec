"""Crash-safe rewriting of small metadata files (topic list, log start offsets, offset snapshots).

spark_app/runtime/atomic_file.py does the same for the Spark app: the two apps never import each
other (they are separate programs with one owner per contract), so each keeps one copy.

Usage: `write_atomically(folder / "topics.json", json.dumps(topics))`
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_atomically"]


def write_atomically(path: Path, text: str) -> None:
    """Write to a temporary file, fsync, rename over: readers see the old or the new, never half."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError:
        # Disk full: the old file is untouched; do not leave half a new one beside it.
        temporary.unlink(missing_ok=True)
        raise
