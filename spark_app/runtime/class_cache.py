"""A class-data sharing archive for the driver JVM, so that Spark starts in about half the time.

Starting Spark loads and verifies some 20,000 classes from 200-odd jars, which took ~3 s of the
session start and ~1.5 s of the first query on this machine. The JVM can instead map them from
an archive written by an earlier run (JDK 13+ "dynamic AppCDS", `-XX:ArchiveClassesAtExit`).
The first run of a given Spark and Java writes the archive when its JVM exits; later runs use it.

A JVM that maps a truncated archive crashes, and a JVM killed while writing leaves one behind,
so the archive is written under a name of its own, checked by starting a JVM on it, and only
then renamed into place. An archive that does not match the JVM (another classpath or JDK build)
is ignored by the JVM itself. Deleting the folder is always safe: the next run writes a new one.

Usage:
    cache = ClassCache(default_cache_dir(), "/usr/bin/java")
    options = cache.java_options()      # add to spark.driver.extraJavaOptions
    ...                                 # run Spark, stop it, let its JVM exit
    cache.adopt()                       # keep the archive this run wrote, if it is sound
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from spark_app.runtime.atomic_file import replace_durably

__all__ = ["ClassCache", "default_cache_dir", "process_alive"]

# The JVM reports every class it cannot archive (e.g. from signed jars) on the console.
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "checkpoint-experience"


def _archive_name(java: str) -> str:
    """One archive per Spark installation and Java runtime: an archive fits only those."""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    key = f"{pyspark.__version__}|{jars}|{Path(java).resolve()}|{os.stat(java).st_mtime_ns}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return f"spark-{pyspark.__version__}-{digest}.jsa"


def process_alive(pid: int) -> bool:
    """Whether a process with this pid exists (it may belong to another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ClassCache:
    """The archive for this Spark and Java in `folder`, and the JVM options to use or write it."""

    def __init__(self, folder: Path, java: str) -> None:
        self.java = java
        self.archive = folder / _archive_name(java)
        # Written by this process's JVM at exit; adopted only if a JVM can start on it.
        self._candidate = self.archive.with_name(f"{self.archive.name}.{os.getpid()}.tmp")
        self.writes_at_exit = False  # True once java_options() asked the JVM to write it

    def writing(self) -> bool:
        """No archive yet: the next JVM is asked to write one."""
        return not self.archive.exists()

    def java_options(self) -> str:
        """JVM options that use the archive, or write it at exit; none if the folder is unusable."""
        if self.writing():
            try:
                self.archive.parent.mkdir(parents=True, exist_ok=True)
            except OSError:  # e.g. a read-only home: start without the archive
                return ""
            self._remove_abandoned()
            self.writes_at_exit = True
            return f"-XX:ArchiveClassesAtExit={self._candidate} {_QUIET}"
        return f"-XX:SharedArchiveFile={self.archive} {_QUIET}"

    def _remove_abandoned(self) -> None:
        """Archives whose writer died before adopting them (killed while its JVM wrote)."""
        for leftover in self.archive.parent.glob(f"{self.archive.name}.*.tmp"):
            pid = leftover.name.removeprefix(f"{self.archive.name}.").removesuffix(".tmp")
            if pid.isdigit() and not process_alive(int(pid)):
                leftover.unlink(missing_ok=True)

    def adopt(self) -> bool:
        """After the JVM exited: move the archive it wrote into place if a JVM can map it."""
        candidate = self._candidate
        if not candidate.exists():
            return False
        try:
            check = subprocess.run([self.java, f"-XX:SharedArchiveFile={candidate}", *_QUIET.split(),
                                    "-XX:ErrorFile=/dev/null", "-version"],
                                   capture_output=True, timeout=60)
            if check.returncode == 0:
                replace_durably(candidate, self.archive)
                return True
            return False
        except (OSError, subprocess.TimeoutExpired):
            return False
        finally:
            candidate.unlink(missing_ok=True)
