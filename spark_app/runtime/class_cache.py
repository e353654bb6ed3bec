"""A class-data sharing archive for the driver JVM, so that Spark starts in about half the time.

Starting Spark loads and verifies some 14,000 classes from 200-odd jars, which took ~3 s of the
session start and ~1.5 s of the first query on this machine. The JVM can instead map them from
an archive (JDK 10+ AppCDS). Writing one costs ~30 s of CPU, so it is never done where a learner
waits: a start without an archive only lists the classes its JVM loads
(`-XX:DumpLoadedClassList`, nearly free), and after the query's first batch with data a
background JVM (`java -Xshare:dump`, niced, in the app's process group) turns that list into the
archive. A kill of the app's group kills the writer too; a stop of the app ends it without
waiting. The next start without an archive tries again.

What the app listed stays in the folder until an archive is written from it (`….classlist` and
`….recipe`: the class path and heap the writer must match). A scenario's apps live seconds, not
the minute a writer needs, so theirs were always killed, and a fresh clone ran every start of a
`run all` without an archive; the scenario runner now resumes the writer from what they left
(`python -m spark_app class-archive`), as a process of its own that the run stops at its end.

A JVM that maps a truncated archive crashes, and a writer killed halfway leaves one behind, so
the archive is written under a name of its own, checked by starting a JVM on it, and only then
renamed into place. An archive that does not match the JVM (another class path or JDK build) is
ignored by the JVM itself. Deleting the folder is always safe: the next run writes a new one.

The JVM checks the class path an archive was made for by file name, so an archive serves one
installed PySpark (one clone's venv) and one Java. Beside each archive a small `.made-for` file
names the jars folder and the Java it was made for; every start deletes the archives whose jars
folder or Java is gone, or whose folder and Java now have another archive (an upgrade).

Usage:
    cache = ClassCache(default_cache_dir(), "/usr/bin/java")
    options = cache.java_options(session_folder / "loaded-classes.txt")  # extraJavaOptions
    executors = cache.sharing_options()  # a cluster's executors: the same archive, or nothing
    ...                                 # start Spark; after its first batch:
    writer = cache.start_writing(class_path, ["-Xmx1g"])   # None when there is nothing to do
    ...
    writer.stop()                       # when the app stops: kill it if it is still writing
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from maven_jars.cache import cache_root
from spark_app.runtime.atomic_file import replace_durably, write_atomically
from spark_app.runtime.jvm_flags import NO_PERF_FILE

__all__ = [
    "ClassCache",
    "ArchiveWriter",
    "default_cache_dir",
    "process_alive",
    "pyspark_jars",
    "LEGACY_DAYS",
    "writing_line",
    "saved_line",
    "archive_news",
    "kill_writers",
]

# The JVM reports every class it cannot archive (e.g. from signed jars) on the console.
_QUIET = f"-Xlog:cds=off -Xlog:cds+dynamic=off {NO_PERF_FILE}"
# Archives without a `.made-for` file were written by the previous version of this module (at a
# clean stop). One of this clone's is claimed by its name; another clone's is left alone for a
# month (that clone may still run the old code and use it), then deleted.
LEGACY_DAYS = 30
_MADE_FOR = ".made-for"
_KEPT_LIST, _RECIPE = ".classlist", ".recipe"


# What the app says on its console about the archive; the demo reads it back (archive_news).
_WRITING = "Writing Spark's class archive "
_SAVED = "Saved Spark's class archive "


def writing_line(archive: Path, pid: int) -> str:
    return f"{_WRITING}{archive} in the background (pid {pid})"


def saved_line(archive: Path, seconds: float) -> str:
    return f"{_SAVED}{archive} in {seconds:.0f} s: later starts take about half the time"


def archive_news(line: str) -> str | None:
    """ "writing" or "saved" for the app's console lines above, else None."""
    if line.startswith(_WRITING):
        return "writing"
    if line.startswith(_SAVED):
        return "saved"
    return None


def default_cache_dir() -> Path:
    """The project's one cache folder, the jar cache's: `$CHECKPOINT_EXPERIENCE_CACHE`, else
    `$XDG_CACHE_HOME/checkpoint-experience` or `~/.cache/checkpoint-experience`."""
    return cache_root()


def pyspark_jars() -> Path:
    """PySpark's own jars: Spark, and Hadoop's client (hadoop-client-api/-runtime)."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent / "jars"


def _archive_name(java: str, jars: Path) -> str:
    """One archive per Spark installation and Java runtime: an archive fits only those."""
    import pyspark

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

    def __init__(self, folder: Path, java: str, jars: Path | None = None) -> None:
        self.java = java
        self.jars = jars or pyspark_jars()
        self.archive = folder / _archive_name(java, self.jars)
        self.made_for = self.archive.with_name(self.archive.name + _MADE_FOR)
        # Written by this process's writer; adopted only if a JVM can start on it.
        self._candidate = self.archive.with_name(f"{self.archive.name}.{os.getpid()}.tmp")
        # What an app listed, and the class path and options to write from it: kept until an
        # archive is written, so that a writer killed with its app can be resumed by another.
        self.kept_list = self.archive.with_name(self.archive.name + _KEPT_LIST)
        self.recipe = self.archive.with_name(self.archive.name + _RECIPE)
        self.class_list: Path | None = None  # set once java_options() asked the JVM for the list

    def writing(self) -> bool:
        """No archive yet: the JVM lists its classes, and the archive is written from the list."""
        return not self.archive.exists()

    def java_options(self, class_list: Path) -> str:
        """JVM options that use the archive, or list the loaded classes into `class_list` for
        writing it; none if the folder is unusable. Prunes the folder first (cheap)."""
        try:
            self.archive.parent.mkdir(parents=True, exist_ok=True)
            self.prune()
        except OSError:  # e.g. a read-only home: start without the archive
            return ""
        if self.writing():
            self.class_list = class_list
            return f"-XX:DumpLoadedClassList={class_list}"
        return self.sharing_options()

    def sharing_options(self) -> str:
        """JVM options that map the archive, for other JVMs on the driver's class path (a
        cluster's executors); none while there is no archive (they never list classes)."""
        return "" if self.writing() else f"-XX:SharedArchiveFile={self.archive} {_QUIET}"

    def _describe(self) -> str:
        return json.dumps({"jars": str(self.jars), "java": str(Path(self.java).resolve())})

    def prune(self) -> list[Path]:
        """Delete what no start can use any more; returns what was deleted."""
        self._claim_legacy()
        gone = self._remove_abandoned()
        for archive in self.archive.parent.glob("spark-*.jsa"):
            if archive != self.archive and _useless(archive, self.jars, Path(self.java).resolve()):
                gone.append(archive)
        for recipe in self.archive.parent.glob(f"spark-*.jsa{_RECIPE}"):
            if _recipe_useless(recipe, self.recipe, self.jars, Path(self.java).resolve()):
                gone.append(recipe)
        for path in gone:
            path.unlink(missing_ok=True)
            path.with_name(path.name + _MADE_FOR).unlink(missing_ok=True)
            path.with_name(path.name.removesuffix(_RECIPE) + _KEPT_LIST).unlink(missing_ok=True)
        return gone

    def _claim_legacy(self) -> None:
        """This clone's archive from before `.made-for` files: its name is this clone's key."""
        if self.archive.exists() and not self.made_for.exists():
            write_atomically(self.made_for, self._describe())

    def _remove_abandoned(self) -> list[Path]:
        """Archives whose writer died before adopting them (killed while it wrote)."""
        gone = []
        for leftover in self.archive.parent.glob("spark-*.jsa.*.tmp"):
            pid = leftover.name.split(".jsa.", 1)[1].split(".", 1)[0]
            if pid.isdigit() and not process_alive(int(pid)):
                gone.append(leftover)
        return gone

    def start_writing(
        self,
        class_path: str,
        jvm_options: Sequence[str],
        said: Callable[[str], None] = lambda _: None,
    ) -> ArchiveWriter | None:
        """Write the archive in the background from the classes listed so far; None when the
        archive exists, nothing was listed, or another process is writing it already."""
        if self.class_list is None or not self.writing() or self.someone_writing():
            return None
        try:
            listed = self.class_list.read_bytes()
            # The JVM may be halfway through a line: keep the complete ones.
            write_atomically(self.kept_list, listed[: listed.rfind(b"\n") + 1])
            write_atomically(
                self.recipe,
                json.dumps(
                    {
                        **json.loads(self._describe()),
                        "class_path": class_path,
                        "jvm_options": list(jvm_options),
                    }
                ),
            )
            # Claimed now, not when the writer creates it at its end: another app starting
            # meanwhile sees a live writer and does not start a second one.
            self._candidate.touch()
        except OSError:
            return None
        return ArchiveWriter(self, self.kept_list, class_path, list(jvm_options), said).start()

    def resume_writing(self, said: Callable[[str], None] = lambda _: None) -> ArchiveWriter | None:
        """Write the archive from what an earlier app listed and left behind (its own writer
        was stopped with it); None when the archive exists, nothing was left, or another
        process is writing it."""
        if not self.writing() or self.someone_writing() or not self.kept_list.exists():
            return None
        try:
            recipe = json.loads(self.recipe.read_text(encoding="utf-8"))
            class_path, options = str(recipe["class_path"]), [str(o) for o in recipe["jvm_options"]]
            self._candidate.touch()
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return ArchiveWriter(self, self.kept_list, class_path, options, said).start()

    def forget_recipe(self) -> None:
        """Drop what was kept for writing: an archive was written, or writing it failed (the
        next app lists its classes anew)."""
        self.recipe.unlink(missing_ok=True)
        self.kept_list.unlink(missing_ok=True)

    def someone_writing(self) -> bool:
        """Whether another live process is writing the archive (its claimed temporary file)."""
        for other in self.archive.parent.glob(f"{self.archive.name}.*.tmp"):
            pid = other.name.removeprefix(f"{self.archive.name}.").split(".", 1)[0]
            if pid.isdigit() and int(pid) != os.getpid() and process_alive(int(pid)):
                return True
        return False

    def adopt(self, class_path: str, jvm_options: Sequence[str]) -> bool:
        """Move the written archive into place if a JVM can map it with this class path."""
        candidate = self._candidate
        if not candidate.exists():
            return False
        try:
            check = subprocess.run(
                [
                    self.java,
                    "-Xshare:on",
                    f"-XX:SharedArchiveFile={candidate}",
                    *_QUIET.split(),
                    "-XX:ErrorFile=/dev/null",
                    *jvm_options,
                    "-cp",
                    class_path,
                    "-version",
                ],
                capture_output=True,
                timeout=120,
            )
            if check.returncode != 0:
                return False
            write_atomically(self.made_for, self._describe())  # before the archive: never without
            replace_durably(candidate, self.archive)
            return True
        except (OSError, subprocess.TimeoutExpired):
            return False
        finally:
            candidate.unlink(missing_ok=True)


def _useless(archive: Path, our_jars: Path, our_java: Path) -> bool:
    """An archive no start can use: made for a jars folder or Java that is gone, or replaced
    by another archive for the same ones (PySpark or Java upgraded in place)."""
    made_for = archive.with_name(archive.name + _MADE_FOR)
    try:
        record = json.loads(made_for.read_text(encoding="utf-8"))
        jars, java = Path(record["jars"]), Path(record["java"])
    except FileNotFoundError:
        try:
            age_days = (time.time() - archive.stat().st_mtime) / 86400
        except FileNotFoundError:
            return False
        return age_days > LEGACY_DAYS
    except (OSError, ValueError, KeyError, TypeError):
        return True  # a record we cannot read is no record
    if not jars.is_dir() or not java.exists():
        return True
    return jars == our_jars and java == our_java


def _recipe_useless(recipe: Path, ours: Path, our_jars: Path, our_java: Path) -> bool:
    """What was kept for writing an archive that exists by now, for a jars folder or Java that
    is gone, or for ours under another name (PySpark or Java upgraded in place)."""
    if recipe.with_name(recipe.name.removesuffix(_RECIPE)).exists():
        return True
    try:
        record = json.loads(recipe.read_text(encoding="utf-8"))
        jars, java = Path(record["jars"]), Path(record["java"])
    except FileNotFoundError:
        return False
    except (OSError, ValueError, KeyError, TypeError):
        return True
    if not jars.is_dir() or not java.exists():
        return True
    return recipe != ours and jars == our_jars and java == our_java


# The writers this process started and has not seen end: a crash that skips every clean-up
# (the negative key's os._exit) kills them first, so none outlives the app.
_RUNNING: set[ArchiveWriter] = set()


def kill_writers() -> None:
    """Kill every archive writer of this process still running (nothing it wrote is kept)."""
    for writer in list(_RUNNING):
        if writer.process is not None and writer.process.poll() is None:
            writer.process.kill()


class ArchiveWriter:
    """One background `java -Xshare:dump`, and the thread that adopts what it wrote."""

    def __init__(
        self,
        cache: ClassCache,
        class_list: Path,
        class_path: str,
        jvm_options: list[str],
        said: Callable[[str], None],
    ) -> None:
        self.cache = cache
        self.class_list = class_list
        self.class_path = class_path
        self.jvm_options = jvm_options
        self._said = said
        self.process: subprocess.Popen[bytes] | None = None
        self.adopted = False
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._finish, name="class-archive", daemon=True)

    def command(self) -> list[str]:
        # Niced: it only uses what the app leaves idle. The same -Xmx as the driver, because
        # the JVM refuses an archive written with other compressed-pointer settings.
        nice = ["nice", "-n", "19"] if shutil.which("nice") else []
        return [
            *nice,
            self.cache.java,
            "-Xshare:dump",
            *_QUIET.split(),
            f"-XX:SharedClassListFile={self.class_list}",
            f"-XX:SharedArchiveFile={self.cache._candidate}",
            *self.jvm_options,
            "-cp",
            self.class_path,
        ]

    def start(self) -> ArchiveWriter:
        # Not a session of its own: a kill of the app's process group reaches it too.
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _RUNNING.add(self)
        self._said(writing_line(self.cache.archive, self.process.pid))
        self._thread.start()
        return self

    def _finish(self) -> None:
        assert self.process is not None
        started = time.monotonic()
        code = self.process.wait()
        _RUNNING.discard(self)
        try:
            if code == 0 and not self._stopping.is_set():
                self.adopted = self.cache.adopt(self.class_path, self.jvm_options)
        finally:
            self.cache._candidate.unlink(missing_ok=True)
            if code >= 0:  # ran to its end: written, or not writable from this list
                self.cache.forget_recipe()
        if self.adopted:
            self._said(saved_line(self.cache.archive, time.monotonic() - started))
        elif not self._stopping.is_set():
            self._said(
                f"Spark's class archive was not written (exit code {code}); the next "
                f"start tries again"
            )

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the writer and its adoption; True once both are over."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def stop(self) -> None:
        """End the writer now if it is still writing (what it wrote is discarded); no waiting
        beyond the kill itself."""
        self._stopping.set()
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self._thread.join(2)  # an adoption under way ends on its own
