"""A benchmark's working folder: the one asked for, kept; else a temporary one, removed at the end.

Benchmarks write a broker's data, checkpoints and logs. In a folder of /tmp kept "for a look",
every run left one behind (about 1 MB for source_restart.py, more for the soaks) that nothing
would remove; the project's rule is that nothing of ours stays in /tmp. To look at the files,
give the folder: `--work-dir DIR` (or `--report DIR` for recovery_time.py).

Usage:
    with work_folder(args.work_dir, "source-bench-") as work:
        ...
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["work_folder"]


@contextmanager
def work_folder(given: Path | None, prefix: str) -> Iterator[Path]:
    """`given` (made if missing, kept afterwards), else a new temporary folder removed on exit,
    on a failure too."""
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        yield Path(folder)
