"""The SparkSession the app runs on, and the checks that must pass before starting it.

Spark needs Java 17 or newer; without it PySpark fails with a long, puzzling trace, so the Java
check runs first and says which package to install. Spark's own logging goes to
`<log-dir>/spark.log` (warnings and errors only) so the console keeps to one line per batch.

Usage:
    check_java()
    with SparkSessionResource(settings) as spark: ...
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from spark_app.class_cache import ClassCache, default_cache_dir
from spark_app.errors import JavaMissingError
from spark_app.settings import SparkAppSettings
from spark_app.spark_version import installed_spark_version

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["check_java", "java_version", "SparkSessionResource", "build_session", "jvm_pid"]

_MIN_JAVA = 17
_PACKAGE_HINT = "install Java 17 or newer (Debian/Ubuntu: `sudo apt-get install openjdk-17-jre-headless`)"


def _java_binary() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


@functools.lru_cache(maxsize=None)
def _java_version_output(java: str, mtime_ns: int) -> str | None:
    """`java -version`'s text, asked once per binary: the preflight and the session both check."""
    try:
        done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
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
    java = _java_binary()
    if java is None:
        raise JavaMissingError(f"Java was not found (no JAVA_HOME, no `java` on PATH); Spark 4 "
                               f"needs it: {_PACKAGE_HINT}.")
    version = java_version(java)
    if version is None or version < _MIN_JAVA:
        found = f"Java {version}" if version else "a Java whose version could not be read"
        raise JavaMissingError(f"{java} is {found}, but Spark 4 needs Java {_MIN_JAVA}+: "
                               f"{_PACKAGE_HINT}, or point JAVA_HOME at one.")


def _log4j_config(spark_log: Path) -> Path:
    """A log4j2 config sending Spark's WARN and above to spark.log and nothing to the console."""
    pattern = "[%p] [%d{yyyy-MM-dd HH:mm:ss,SSS}] [%c{1}]: %m%n"
    text = "\n".join([
        "rootLogger.level = warn",
        "rootLogger.appenderRef.file.ref = file",
        "appender.file.type = File",
        "appender.file.name = file",
        f"appender.file.fileName = {spark_log.resolve()}",
        "appender.file.append = true",
        "appender.file.layout.type = PatternLayout",
        f"appender.file.layout.pattern = {pattern}",
        # Harmless on a laptop and printed on every start.
        "logger.hadoop.name = org.apache.hadoop.util.NativeCodeLoader",
        "logger.hadoop.level = error",
        "",
    ])
    folder = Path(tempfile.mkdtemp(prefix="spark_app-log4j-"))
    path = folder / "log4j2.properties"
    path.write_text(text, encoding="utf-8")
    return path


def _export_python_env() -> None:
    """Let Spark's Python workers run our interpreter and import spark_app from any folder.

    Workers are started by the JVM, which inherits this environment; without PYSPARK_PYTHON they
    run whatever `python3` is on PATH, which may lack kafka-python and pyarrow.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # Spark starts about nine Python processes per start, each importing pandas, pyarrow and
    # pyspark. Where PYTHONDONTWRITEBYTECODE is set (CI, some shells) each one compiled them from
    # source again (pandas alone 1.55 s instead of 0.43 s); the workers may keep bytecode.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    # Loopback only: also keeps Spark from warning that the hostname resolves to 127.0.0.1.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    root = str(Path(__file__).resolve().parent.parent)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])


def _checkpoint_files_class() -> str:
    """How Spark writes offsets/N, commits/N and state files: its file-system manager, found
    where the running Spark keeps it (its package moved in 4.2).

    Spark's default goes through Hadoop's FileContext, whose rename on a local disk runs a
    `readlink` process per file (no native Hadoop library here): ~10 processes and ~80 ms a
    batch. On a local disk both managers write the same files (.crc included) the same way: a
    temporary file renamed into place after checking that the target does not exist, so the
    checkpoint's semantics are unchanged.
    """
    import pyspark

    from spark_app.checkpoint_latency import checkpoint_manager_package

    jars = Path(pyspark.__file__).parent / "jars"
    return f"{checkpoint_manager_package(jars)}.FileSystemBasedCheckpointFileManager"


def _driver_java_options(log4j: Path, classes: ClassCache | None) -> str:
    # C1 only: the driver's JVM mostly moves data between Python processes, and on two cores
    # the C2 compiler threads of a starting JVM compete with the Python workers starting.
    options = [f"-Dlog4j2.configurationFile=file:{log4j}", "-XX:TieredStopAtLevel=1"]
    if classes is not None:
        options.append(classes.java_options())
    return " ".join(options)


def build_session(settings: SparkAppSettings, app_name: str = "SparkApp",
                  classes: ClassCache | None = None) -> "SparkSession":
    """Start (or join) the local SparkSession configured for the playground."""
    from pyspark.sql import SparkSession  # importing pyspark is slow; only when Spark is needed

    settings.log_dir.mkdir(parents=True, exist_ok=True)
    _export_python_env()
    log4j = _log4j_config(settings.spark_log_file)
    builder = (SparkSession.builder.appName(app_name).master(settings.master)
               .config("spark.driver.extraJavaOptions", _driver_java_options(log4j, classes))
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.ui.enabled", str(settings.ui).lower())
               .config("spark.ui.port", str(settings.ui_port))
               .config("spark.sql.shuffle.partitions", str(settings.shuffle_partitions))
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.adaptive.enabled", "false")  # unsupported in streaming anyway
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.streaming.stopTimeout", "30s")
               .config("spark.sql.streaming.checkpointFileManagerClass", _checkpoint_files_class()))
    if settings.checkpoint_latency:
        builder = _slow_checkpoints(builder, settings)
    if settings.event_log_dir is not None:
        builder = _event_log(builder, settings.event_log_dir)
    if settings.source == "spark-kafka":
        # Fetched (with progress) by the preflight; read from the cache here. spark.jars puts
        # them on the driver's class path and serves them to every executor of a cluster.
        from spark_app.runtime.connector_jars import connector_jars

        jars = connector_jars(installed_spark_version(), progress=False)
        builder = builder.config("spark.jars", ",".join(str(jar) for jar in jars))
    session = builder.getOrCreate()
    if not settings.master.startswith("local["):
        # Executors of a cluster (local-cluster, spark://) run their Python workers in their own
        # folders, where `spark_app` cannot be imported: ship it, as `spark-submit --py-files`.
        session.sparkContext.addPyFile(str(_code_archive(settings.log_dir)))
    return session


def _slow_checkpoints(builder: "SparkSession.Builder", settings: SparkAppSettings
                      ) -> "SparkSession.Builder":
    """Spark writes its checkpoint through our slow file manager (checkpoint_latency.py)."""
    from spark_app.checkpoint_latency import CLASS_NAME, LatencySpec, SlowCheckpointClasses

    assert settings.checkpoint_latency is not None
    classes = SlowCheckpointClasses(settings.class_cache_dir or default_cache_dir()).ensure()
    builder = (builder.config("spark.sql.streaming.checkpointFileManagerClass", CLASS_NAME)
               .config("spark.driver.extraClassPath", str(classes))
               .config("spark.executor.extraClassPath", str(classes)))
    for key, value in LatencySpec.parse(settings.checkpoint_latency).spark_conf().items():
        builder = builder.config(key, value)
    return builder


def _event_log(builder: "SparkSession.Builder", folder: Path) -> "SparkSession.Builder":
    """Spark's own record of the run, one JSON event per line; uncompressed so a scenario can
    read it while the app runs (Spark flushes it at every stage's end and executor change)."""
    folder.mkdir(parents=True, exist_ok=True)
    return (builder.config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", folder.resolve().as_uri())
            .config("spark.eventLog.compress", "false"))


def _code_archive(folder: Path) -> Path:
    """This package as a zip that executors put on their Python path."""
    package = Path(__file__).resolve().parent
    archive = folder / "spark_app-code.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for source in sorted(package.glob("*.py")):
            zipped.write(source, f"spark_app/{source.name}")
    return archive


def jvm_pid(spark: "SparkSession") -> int:
    """The pid of the JVM behind the session, to kill it as the seed's halt(-1) did."""
    return int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())


class SparkSessionResource:
    """`with SparkSessionResource(settings) as spark:`: start once, stop once.

    With a class cache folder in the settings, the JVM starts from the archive kept there; the
    first run writes it when its JVM exits, so stop() then waits for the JVM (a few seconds).
    """

    def __init__(self, settings: SparkAppSettings) -> None:
        self.settings = settings
        self.spark: "SparkSession | None" = None
        self._classes: ClassCache | None = None

    def __enter__(self) -> "SparkSession":
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> "SparkSession":
        if self.spark is None:
            check_java()
            # The class archive is made for one class path; the slow file manager adds to it.
            if self.settings.class_cache_dir is not None and not self.settings.checkpoint_latency:
                self._classes = ClassCache(self.settings.class_cache_dir, _java_binary() or "java")
            self.spark = build_session(self.settings, classes=self._classes)
        return self.spark

    def stop(self) -> None:
        spark, self.spark = self.spark, None
        if spark is None:
            return
        try:
            spark.stop()
        except ConnectionError:
            # The JVM is gone already: a signal to the whole process group (`timeout`, a closed
            # terminal) reached it too. Nothing is left to stop, and no class archive to keep.
            return
        if self._classes is not None and self._classes.writes_at_exit:
            print(f"Saving Spark's classes for faster starts to {self._classes.archive} (once, "
                  f"takes a few seconds)", file=sys.stderr, flush=True)
            if _end_jvm():
                self._classes.adopt()


def _end_jvm(timeout_sec: float = 120.0) -> bool:
    """Make the stopped session's JVM exit now rather than with Python; True once it has.

    PySpark keeps one JVM per Python process and ends it only when Python exits; the JVM writes
    the class archive as it exits. A session started after this gets a new JVM.
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
