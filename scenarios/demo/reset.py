"""The hard reset without touching what git tracks: empty a folder, keep its placeholder.

`checkpoints/` and `log/` are in the repository only through an empty `.gitkeep` each. Deleting
the folder (as `rm -rf checkpoints` does) deletes that file too, and the user's `git status`
shows a change after following the README; emptying the folder leaves it clean.

Usage: `empty_folder(Path("checkpoints"))`  # True when something was deleted
"""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["PLACEHOLDERS", "empty_folder"]

# Files that keep an otherwise empty folder in git.
PLACEHOLDERS = frozenset({".gitkeep"})


def empty_folder(folder: Path) -> bool:
    """Delete everything in `folder` but its placeholder; True if anything was deleted."""
    if not folder.is_dir():
        return False
    removed = False
    for entry in folder.iterdir():
        if entry.name in PLACEHOLDERS:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
        removed = True
    return removed
