"""The SparkSession the app runs on, and the checks that must pass before starting it.

Spark needs Java 17 or newer; without it PySpark fails with a long, puzzling trace, so the Java
check runs first and says which package to install. Spark's own logging goes to
`<log-dir>/spark.log` (warnings and errors only) so the console keeps to one line per batch.

The session's conf and its JVM's environment come from one pure function (session_plan.py) fed
with facts looked up here; its temporary files (the log4j config) live in a folder removed when
the session stops.

Usage:
    check_java()
    with SparkSessionResource(settings) as spark: ...
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from spark_app.errors import JavaMissingError
from spark_app.runtime.checkpoint_store import store_conf
from spark_app.runtime.class_cache import (
    ArchiveWriter,
    ClassCache,
    default_cache_dir,
    process_alive,
    pyspark_jars,
)
from spark_app.runtime.connect import new_token
from spark_app.runtime.jvm_flags import NO_PERF_FILE
from spark_app.runtime.session_plan import Found, log4j_text, session_plan
from spark_app.runtime.spark_version import installed_spark_version
from spark_app.settings import SparkAppSettings

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "check_java",
    "java_binary",
    "java_version",
    "SparkSessionResource",
    "build_session",
    "jvm_pid",
    "sweep_own_folders",
    "sweep_dead_sessions",
]

_MIN_JAVA = 17
_PACKAGE_HINT = (
    "install Java 17 or newer (Debian/Ubuntu: `sudo apt-get install openjdk-17-jre-headless`)"
)


def java_binary() -> str | None:
    """The java Spark's launcher runs: $JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


@functools.cache
def _java_version_output(java: str, mtime_ns: int) -> str | None:
    """`java -version`'s text, asked once per binary: the preflight and the session both check."""
    try:
        done = subprocess.run(
            [java, NO_PERF_FILE, "-version"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stderr + done.stdout


def java_version(java: str) -> int | None:
    """The major version `java -version` reports (8 for "1.8.0_392", 17 for "17.0.15")."""
    try:
        output = _java_version_output(java, os.stat(java).st_mtime_ns)
    except OSError:
        return None
    match = re.search(r'version "(\d+)(?:\.(\d+))?', output or "")
    if not match:
        return None
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def check_java() -> None:
    """Raise JavaMissingError unless a Java 17+ runtime is on JAVA_HOME or PATH."""
    java = java_binary()
    if java is None:
        raise JavaMissingError(
            f"Java was not found (no JAVA_HOME, no `java` on PATH); Spark 4 "
            f"needs it: {_PACKAGE_HINT}."
        )
    version = java_version(java)
    if version is None or version < _MIN_JAVA:
        found = f"Java {version}" if version else "a Java whose version could not be read"
        raise JavaMissingError(
            f"{java} is {found}, but Spark 4 needs Java {_MIN_JAVA}+: "
            f"{_PACKAGE_HINT}, or point JAVA_HOME at one."
        )


def _look_up(settings: SparkAppSettings, folder: Path, classes: ClassCache | None) -> Found:
    """The machine's part of the plan; writes the log4j config into the session's `folder`."""
    log4j = folder / "log4j2.properties"
    log4j.write_text(log4j_text(settings.spark_log_file), encoding="utf-8")
    return Found(
        python=sys.executable,
        code_root=Path(__file__).resolve().parents[2],
        log4j_file=log4j,
        checkpoint_files_class=_checkpoint_files_class(),
        class_cache_options=(
            classes.java_options(folder / "loaded-classes.txt") if classes is not None else ""
        ),
        executor_class_options=classes.sharing_options() if classes is not None else "",
        slow_classes=_slow_classes(settings),
        connector_conf=_connector_conf(settings),
        store_conf=store_conf(settings.checkpoint),
        temp_dir=folder,
        jvm_temp_dir=_jvm_temp_folder(),
        connect_token=new_token() if settings.connect else "",
    )


def _checkpoint_files_class() -> str:
    """How Spark writes offsets/N, commits/N and state files: its file-system manager, found
    where the running Spark keeps it (its package moved in 4.2).

    Spark's default goes through Hadoop's FileContext, whose rename on a local disk runs a
    `readlink` process per file (no native Hadoop library here): ~10 processes and ~80 ms a
    batch. On a local disk both managers write the same files (.crc included) the same way: a
    temporary file renamed into place after checking that the target does not exist, so the
    checkpoint's semantics are unchanged.
    """
    from spark_app.runtime.checkpoint_latency import checkpoint_manager_package

    return f"{checkpoint_manager_package(pyspark_jars())}.FileSystemBasedCheckpointFileManager"


def _slow_classes(settings: SparkAppSettings) -> Path | None:
    """The compiled slow file manager for --checkpoint-latency (compiled on first use)."""
    if not settings.checkpoint_latency:
        return None
    from spark_app.runtime.checkpoint_latency import SlowCheckpointClasses

    return SlowCheckpointClasses(settings.class_cache_dir or default_cache_dir()).ensure()


def _connector_conf(settings: SparkAppSettings) -> dict[str, str]:
    """Spark's own Kafka connector for `--source spark-kafka`."""
    if settings.source != "spark-kafka":
        return {}
    # Fetched (with progress) by the preflight; read from the cache here. spark.jars puts them on
    # the driver's class path and serves them to every executor of a cluster.
    from spark_app.runtime.connector_jars import connector_jars

    jars = connector_jars(installed_spark_version(), progress=False)
    return {"spark.jars": ",".join(str(jar) for jar in jars)}


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """`os.environ` is `env` inside the block, and again what it was after it.

    PySpark's launcher (java_gateway.launch_gateway) gives the JVM a copy of os.environ and
    nothing else (it replaces any `env` passed to it), and SparkContext reads PYSPARK_PYTHON
    from os.environ as it starts. So the session's variables must be in os.environ while
    getOrCreate runs, and no longer: the JVM keeps its copy and passes it on to the Python
    workers it starts, and the rest of this process keeps its own environment.
    """
    before = dict(os.environ)
    touched = {k for k in env if before.get(k) != env[k]} | {k for k in before if k not in env}
    for key in touched:
        if key in env:
            os.environ[key] = env[key]
        else:
            del os.environ[key]
    try:
        yield
    finally:
        for key in touched:
            if key in before:
                os.environ[key] = before[key]
            else:
                os.environ.pop(key, None)


@contextmanager
def _temporary_files_in(folder: Path) -> Iterator[None]:
    """Python's temporary files go into `folder` inside the block, and to the usual place after.

    PySpark's launcher makes a folder in /tmp for the JVM's connection details and removes it
    once the JVM answers; an app killed in between (the scenarios kill apps as they start) left
    it there. In the session folder, named with our pid, the next start sweeps it."""
    before = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield
    finally:
        tempfile.tempdir = before


def build_session(
    settings: SparkAppSettings,
    *,
    folder: Path,
    app_name: str = "SparkApp",
    classes: ClassCache | None = None,
) -> SparkSession:
    """Start (or join) the local SparkSession configured for the playground. Its temporary files
    go to `folder`, which the caller removes once the session stopped (SparkSessionResource)."""
    from pyspark.sql import SparkSession  # importing pyspark is slow; only when Spark is needed

    settings.log_dir.mkdir(parents=True, exist_ok=True)
    if settings.event_log_dir is not None:
        settings.event_log_dir.mkdir(parents=True, exist_ok=True)
    if settings.gc_log is not None:  # the JVM refuses to start on a log it cannot open
        settings.gc_log.parent.mkdir(parents=True, exist_ok=True)
    plan = session_plan(settings, _look_up(settings, folder, classes), os.environ, app_name)
    builder = SparkSession.builder
    for key, value in plan.conf.items():
        builder = builder.config(key, value)
    with _environment(plan.env), _temporary_files_in(folder):
        session = builder.getOrCreate()
    if not settings.master.startswith("local["):
        # Executors of a cluster (local-cluster, spark://) run their Python workers in their own
        # folders, where `spark_app` cannot be imported: ship it, as `spark-submit --py-files`.
        session.sparkContext.addPyFile(str(_code_archive(settings.log_dir)))
    return session


# The packages an executor's Python worker may import: spark_app, and the project's packages
# spark_app imports (a worker that crashes on a record imports the class cache's, which imports
# maven_jars: found when worker-loss ran a user's query on a standalone cluster).
SHIPPED_PACKAGES = ("spark_app", "maven_jars", "checkpoint_stores")


def _code_archive(folder: Path) -> Path:
    """The packages executors need, sub-packages included, as a zip that executors put on their
    Python path (a module left out would fail only on a cluster's executors)."""
    root = Path(__file__).resolve().parents[2]
    archive = folder / "spark_app-code.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for name in SHIPPED_PACKAGES:
            for source in sorted((root / name).rglob("*.py")):
                zipped.write(source, source.relative_to(root).as_posix())
    return archive


def jvm_pid(spark: SparkSession) -> int:
    """The pid of the JVM behind the session, to kill it as the seed's halt(-1) did."""
    return int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())


# The session's temporary folder: `<tmp>/spark_app-session-<pid>-<random>`.
_FOLDER_PREFIX = "spark_app-session-"


def _jvm_temp_folder() -> Path:
    """The driver JVM's java.io.tmpdir: one per Python process, since PySpark keeps one JVM per
    process across sessions. Named like the session folders, so the next start removes a killed
    process's; removed when this process exits."""
    folder = Path(tempfile.gettempdir()) / f"{_FOLDER_PREFIX}{os.getpid()}-jvm"
    folder.mkdir(parents=True, exist_ok=True)
    _sweep_at_exit()
    return folder


def _session_folder() -> Path:
    """A new temporary folder for one session's files. Its name carries our pid, so that the
    next start removes it if this process is killed before stop() (the scenarios kill apps)."""
    sweep_dead_sessions()
    _sweep_at_exit()
    return Path(tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-"))


def sweep_dead_sessions() -> None:
    """Remove the session folders of app processes that are gone (a kill -9 leaves its own
    behind): at every session start, and when whoever killed an app stops (the demo, a stage)."""
    for old in Path(tempfile.gettempdir()).glob(f"{_FOLDER_PREFIX}*-*"):
        pid = old.name.removeprefix(_FOLDER_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)


_sweep_registered = False


def _sweep_at_exit() -> None:
    """Have sweep_own_folders run when this process exits (once, however often asked)."""
    global _sweep_registered
    if not _sweep_registered:
        _sweep_registered = True
        atexit.register(sweep_own_folders)


def sweep_own_folders() -> None:
    """At this process's exit, every session folder of ours that is still there. A folder
    removed at stop() can come back empty: PySpark keeps the JVM, and when it ends later (a
    test ending it to start another, CI's pytest on 26 Nov) its shutdown touched the folder
    again. No later start of ours would remove it while this process lives."""
    for folder in Path(tempfile.gettempdir()).glob(f"{_FOLDER_PREFIX}{os.getpid()}-*"):
        shutil.rmtree(folder, ignore_errors=True)


class SparkSessionResource:
    """`with SparkSessionResource(settings) as spark:`: start once, stop once.

    With a class cache folder in the settings, the JVM starts from the archive kept there; a
    start without one writes it in the background after the first batch with data
    (class_cache.py), and stop() ends that writer without waiting for it.
    The session's temporary folder is removed when it stops, or when it fails to start.
    """

    def __init__(self, settings: SparkAppSettings) -> None:
        self.settings = settings
        self.spark: SparkSession | None = None
        self.folder: Path | None = None
        self._classes: ClassCache | None = None
        self.archive_writer: ArchiveWriter | None = None
        self._archive_asked = False

    def __enter__(self) -> SparkSession:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> SparkSession:
        if self.spark is None:
            check_java()
            if self.settings.class_cache_dir is not None:
                self._classes = ClassCache(self.settings.class_cache_dir, java_binary() or "java")
            self.folder = _session_folder()
            try:
                self.spark = build_session(self.settings, folder=self.folder, classes=self._classes)
            except BaseException:
                self._remove_folder()
                raise
            if self._classes is not None and self._classes.class_list is not None:
                self.spark.streams.addListener(_archive_after_first_batch(self, self.spark))
        return self.spark

    def write_class_archive(self, class_path: str, jvm_options: list[str]) -> None:
        """Start writing the class archive in the background, once (see class_cache.py)."""
        if self._classes is None or self._archive_asked or self.spark is None:
            return
        self._archive_asked = True
        self.archive_writer = self._classes.start_writing(class_path, jvm_options, _say)

    def stop(self) -> None:
        spark, self.spark = self.spark, None
        if spark is None:
            return
        try:
            if self.archive_writer is not None:
                self.archive_writer.stop()  # never waited for: a restart may be waiting on us
            self._stop(spark)
        finally:
            self._remove_folder()

    def _remove_folder(self) -> None:
        folder, self.folder = self.folder, None
        if folder is not None:
            # What comes back after this (Spark's cleanup still at work, the JVM's shutdown)
            # goes at this process's exit: sweep_own_folders.
            shutil.rmtree(folder, ignore_errors=True)

    def _stop(self, spark: SparkSession) -> None:
        try:
            spark.stop()
        except ConnectionError:
            # The JVM is gone already: a signal to the whole process group (`timeout`, a closed
            # terminal) reached it too. Nothing is left to stop.
            return


def _say(text: str) -> None:
    """The class archive's progress: on the app's console (stderr) and in spark.log."""
    print(text, file=sys.stderr, flush=True)
    logging.getLogger("spark_app").info(text)


def _archive_after_first_batch(resource: SparkSessionResource, spark: SparkSession) -> Any:
    """A listener that starts the class archive's writer after the first batch that read data:
    by then the JVM has loaded the classes a query needs, and the learner has seen the app work.
    The class path and heap size are the driver JVM's own, asked now (the writer must match)."""
    from pyspark.sql.streaming.listener import StreamingQueryListener

    jvm = spark.sparkContext._jvm
    assert jvm is not None
    class_path = str(jvm.java.lang.System.getProperty("java.class.path"))
    arguments = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    heap = [str(a) for a in arguments if str(a).startswith(("-Xmx", "-Xms"))]

    class FirstBatch(StreamingQueryListener):  # type: ignore[misc]
        def onQueryStarted(self, event: Any) -> None:
            return None

        def onQueryProgress(self, event: Any) -> None:
            if event.progress.numInputRows > 0:
                resource.write_class_archive(class_path, heap)

        def onQueryIdle(self, event: Any) -> None:
            return None

        def onQueryTerminated(self, event: Any) -> None:
            return None

    return FirstBatch()


def _end_jvm(timeout_sec: float = 120.0) -> bool:
    """Make the stopped session's JVM exit now rather than with Python; True once it has.

    PySpark keeps one JVM per Python process and ends it only when Python exits; a session
    started after this gets a new JVM (with other jars, say).
    """
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    if gateway is None:
        return False
    SparkContext._gateway = None
    SparkContext._jvm = None
    gateway.shutdown()
    gateway.proc.stdin.close()  # PySpark's JVM exits when its stdin closes
    try:
        gateway.proc.wait(timeout=timeout_sec)
    except subprocess.TimeoutExpired:
        return False
    return gateway.proc.returncode == 0
