"""The disk a first run still has to write, folder by folder, summed per disk against its free
space: uv's cache, the project's cache, the temporary folder and the project's own folders are
often on one disk, and what counts is the room on it for all of them.

Usage:
    needs = first_run_needs(uv_cache_dir(), cache_root(), Path(tempfile.gettempdir()), False)
    for finding in disk_findings(needs): print(finding.line())
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scenarios.doctor.finding import Finding, ok, problem
from scenarios.engine.settings import PROJECT_ROOT

__all__ = ["DiskNeed", "uv_cache_dir", "first_run_needs", "disk_findings", "disk_finding"]

GIB = 1 << 30
# What a first run's files take, per folder, measured 29 Nov 2026 on the caches first runs left
# on a 2-core Linux machine (du, counting files uv hard-links once):
# - uv's cache, for spark-upgrade's PySpark 4.0.0 environment: PyPI has PySpark as a source
#   distribution, which uv unpacks and builds into a wheel (1.8 GB), and the unpacked pyspark
#   and pyarrow 18 wheels (0.6 GB): 2.4 GB.
# - the project's cache: the jars, twice (Ivy's copy and the apps'; Kafka 4.1.2 and 4.4.0, the
#   connector for Spark 4.2.0 and 4.0.0): 0.45 GB; Spark's class archive, 0.18 GB per Spark
#   line; spark-upgrade's environment, 0.13 GB of its own, 0.7 GB where uv's cache is on
#   another disk and it cannot share uv's files: 1.5 GB at most.
# - the temporary folder: each scenario's run folder (Kafka's data, checkpoints, logs) and each
#   Spark start's scratch space, with a copy of the jars; 1 GiB leaves room for `-j 2`.
# - the project: the demo's and the apps' log/ and checkpoints/.
UV_CACHE_GIB, PROJECT_CACHE_GIB, TEMP_GIB, PROJECT_GIB = 2.5, 1.5, 1.0, 0.5


@dataclass(frozen=True)
class DiskNeed:
    """Room a first run's files take in one folder (the measures are above, by the constants)."""

    folder: Path
    gib: float
    what: str


def uv_cache_dir() -> Path:
    """Where uv keeps its cache, as `uv cache dir` says (UV_CACHE_DIR, else the platform's
    default); uv's own default on Linux when there is no uv to ask."""
    uv = shutil.which("uv")
    if uv is not None:
        done = subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, timeout=60)
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    if os.environ.get("UV_CACHE_DIR"):
        return Path(os.environ["UV_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "uv"


def first_run_needs(uv_cache: Path, cache: Path, temp: Path, env_made: bool) -> list[DiskNeed]:
    """What a first run still has to write, folder by folder; `env_made`: spark-upgrade's
    environment is there already (doctor made it before), so uv's cache holds its share."""
    needs = (
        []
        if env_made
        else [DiskNeed(uv_cache, UV_CACHE_GIB, "uv's cache: spark-upgrade's PySpark 4.0.0, built")]
    )
    return [
        *needs,
        DiskNeed(cache, PROJECT_CACHE_GIB, "the jars, Spark's class archives, PySpark 4.0.0"),
        DiskNeed(temp, TEMP_GIB, "the scenarios' run folders"),
        DiskNeed(PROJECT_ROOT, PROJECT_GIB, "log/ and checkpoints/"),
    ]


def _existing(folder: Path) -> Path:
    """`folder`, or its nearest parent that exists (a cache not made yet goes there)."""
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return folder


def disk_findings(
    needs: Sequence[DiskNeed],
    device_of: Callable[[Path], int] = lambda folder: os.stat(_existing(folder)).st_dev,
    free_gib_of: Callable[[Path], float] = lambda folder: (
        shutil.disk_usage(_existing(folder)).free / GIB
    ),
) -> list[Finding]:
    """One finding per disk: the needs of the folders on it, summed, against its free space."""
    by_disk: dict[int, list[DiskNeed]] = {}
    for need in needs:
        by_disk.setdefault(device_of(need.folder), []).append(need)
    return [disk_finding(on_disk, free_gib_of(on_disk[0].folder)) for on_disk in by_disk.values()]


def disk_finding(needs: Sequence[DiskNeed], free_gib: float) -> Finding:
    """The needs of the folders on one disk against its free space."""
    total = sum(need.gib for need in needs)
    where = ", ".join(dict.fromkeys(_shown(need.folder) for need in needs))
    if free_gib < total:
        parts = "; ".join(f"{_shown(n.folder)} {n.gib:g} GiB: {n.what}" for n in needs)
        return problem(
            f"{free_gib:.1f} GiB free on the disk of {where}: a first run needs {total:g} GiB "
            f"there ({parts}); free some, or point UV_CACHE_DIR, CHECKPOINT_EXPERIENCE_CACHE "
            f"or TMPDIR at a bigger disk"
        )
    return ok(f"{free_gib:.0f} GiB free on the disk of {where}: a first run needs {total:g} GiB")


def _shown(folder: Path) -> str:
    """A folder as a person types it: ~ for the home folder."""
    try:
        return f"~/{folder.relative_to(Path.home())}"
    except ValueError:
        return str(folder)
