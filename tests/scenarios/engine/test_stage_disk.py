"""The stage's small disk leaves no mount behind, even when the scenario is killed outright:
a watcher unmounts the tmpfs once the process that mounted it is gone. Root only (mounting a
tmpfs needs CAP_SYS_ADMIN), skipped with that reason otherwise."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.engine.stage.disk import DiskPart

# A scenario's process, reduced to the mount: it mounts, says so, and dies as kill -9 would.
KILLED_AFTER_MOUNT = """
import os, sys
from pathlib import Path
from types import SimpleNamespace
from scenarios.engine.stage.disk import DiskPart
disk = DiskPart(SimpleNamespace(say=print))
disk.mount(Path(sys.argv[1]), size_mib=1)
sys.stdout.flush()
os._exit(9)
"""


def _mounted(folder: Path) -> bool:
    return any(
        line.split()[1] == str(folder) for line in Path("/proc/mounts").read_text().splitlines()
    )


@pytest.mark.e2e
@pytest.mark.skipif(DiskPart.unavailable() is not None, reason=str(DiskPart.unavailable()))
def test_a_killed_scenarios_tmpfs_is_unmounted_by_its_watcher(tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    done = subprocess.run(
        [sys.executable, "-c", KILLED_AFTER_MOUNT, str(folder)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 9 and "tmpfs is mounted" in done.stdout, done.stderr
    deadline = time.monotonic() + 10
    while _mounted(folder) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _mounted(folder), f"{folder} is still mounted 10 s after its scenario died"
