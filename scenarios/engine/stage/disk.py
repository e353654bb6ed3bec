"""The stage's small disk: a tmpfs mounted on a folder (the app's checkpoint), filled and freed.

A full disk under a checkpoint cannot be shown on the machine's own disk without filling it
for everyone; a tmpfs of a few MiB mounted on the checkpoint folder fills in a moment and
takes nothing else down. Mounting needs root (CAP_SYS_ADMIN): `unavailable()` says in one line
why it cannot run here, and the scenario skips that part with the reason. The stage unmounts
it when it closes, whatever happened; and since a kill -9 of the scenario closes nothing, a
watcher started beside the mount (a shell of its own session, so it outlives us) unmounts it
within a second of our process's end, however it ended.

Usage:
    stage.disk.mount(stage.folders.checkpoints, size_mib=8)
    stage.disk.fill(); ...; stage.disk.free()
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from scenarios.errors import StepFailed

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["DiskPart", "FILLER"]

FILLER = "filler.bin"  # the file that takes the disk's last bytes, beside the checkpoint's
_CHUNK = 64 * 1024


class DiskPart:
    """One small tmpfs, mounted on demand; unmounted by `close()` (idempotent)."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage
        self.folder: Path | None = None
        self._watcher: subprocess.Popen[bytes] | None = None

    @staticmethod
    def unavailable() -> str | None:
        """Why a tmpfs cannot be mounted here, or None when it can (root on Linux)."""
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            return "mounting a tmpfs needs root (CAP_SYS_ADMIN); run the scenario as root"
        if (
            not Path("/proc/filesystems").is_file()
            or "tmpfs" not in Path("/proc/filesystems").read_text()
        ):
            return "this kernel offers no tmpfs"
        return None

    def mount(self, folder: Path, size_mib: int) -> None:
        why = self.unavailable()
        if why is not None:
            raise StepFailed(why)
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [
                "mount",
                "-t",
                "tmpfs",
                "-o",
                f"size={size_mib}m,mode=0755",
                "checkpoint-experience",
                str(folder),
            ],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if done.returncode != 0:
            raise StepFailed(
                f"mount of a {size_mib} MiB tmpfs on {folder} failed: "
                f"{done.stderr.strip() or done.returncode}"
            )
        self.folder = folder
        self._watcher = _unmount_when_gone(os.getpid(), folder)
        self._stage.say(f"a {size_mib} MiB tmpfs is mounted on {folder}")

    def _mounted(self) -> Path:
        if self.folder is None:
            raise StepFailed("mount the small disk first: stage.disk.mount(folder, size_mib)")
        return self.folder

    def free_bytes(self) -> int:
        stats = os.statvfs(self._mounted())
        return stats.f_bavail * stats.f_frsize

    def fill(self) -> int:
        """Write the filler until the disk says ENOSPC; the bytes it took."""
        path = self._mounted() / FILLER
        written = 0
        chunk = b"\0" * _CHUNK
        with open(path, "ab", buffering=0) as out:
            while True:
                try:
                    written += out.write(chunk)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    break
        # The last partial chunk: byte by byte would be slow; a tmpfs allocates whole pages,
        # so what remains is less than one chunk and goes with smaller writes.
        with open(path, "ab", buffering=0) as out:
            for size in (4096, 512, 1):
                while True:
                    try:
                        written += out.write(b"\0" * size)
                    except OSError as error:
                        if error.errno != errno.ENOSPC:
                            raise
                        break
        self._stage.timeline.event("disk full", "crash")
        self._stage.say(
            f"the checkpoint's disk is full: {FILLER} took {written / 2**20:.1f} MiB, "
            f"{self.free_bytes()} bytes are left"
        )
        return written

    def free(self) -> None:
        """Remove the filler: the disk has room again."""
        (self._mounted() / FILLER).unlink(missing_ok=True)
        self._stage.timeline.event("space freed", "start")
        self._stage.say(f"{FILLER} removed: {self.free_bytes() / 2**20:.1f} MiB free")

    def close(self) -> None:
        """Unmount (lazily, so a process still holding a file there cannot keep it)."""
        folder, self.folder = self.folder, None
        if folder is not None:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.kill()
            watcher.wait(timeout=10)


def _unmount_when_gone(pid: int, folder: Path) -> subprocess.Popen[bytes]:
    """A shell that waits for `pid` to end, then unmounts `folder` (a no-op if we did)."""
    script = f'while kill -0 {pid} 2>/dev/null; do sleep 1; done; umount -l "$1" 2>/dev/null'
    return subprocess.Popen(
        ["sh", "-c", script, "unmount-when-gone", str(folder)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
