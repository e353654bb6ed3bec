"""The Spark session's plan: Spark's conf and the environment its JVM starts with, derived by
one pure function from the app's settings and a few facts looked up on the machine.

Pure so that every setting the session gets is unit-tested without starting Spark; session.py
looks the facts up (`Found`), applies the plan and owns the session's temporary folder.

Usage:
    plan = session_plan(settings, found, os.environ)
    plan.conf["spark.master"]      # "local[2]"
    plan.env["PYSPARK_PYTHON"]     # the interpreter the Python workers run
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from spark_app.lines.gc_log import java_options as gc_log_options
from spark_app.runtime.checkpoint_latency import CLASS_NAME, LatencySpec
from spark_app.runtime.connect import connect_conf
from spark_app.runtime.jvm_flags import C1_ONLY, NO_PERF_FILE, launcher_opts
from spark_app.runtime.retention import retention_conf
from spark_app.runtime.state_store import state_store_conf
from spark_app.settings import SparkAppSettings

__all__ = ["Found", "SessionPlan", "session_plan", "session_conf", "child_env", "log4j_text"]


@dataclass(frozen=True)
class Found:
    """What the session's plan needs from this machine, looked up before planning (`_look_up`)."""

    python: str  # the interpreter Spark's Python workers run
    code_root: Path  # the folder `spark_app` is imported from
    log4j_file: Path  # our log4j2 config, in the session's temporary folder
    checkpoint_files_class: str  # where this Spark keeps FileSystemBasedCheckpointFileManager
    class_cache_options: str = ""  # JVM options of the class-data archive (ClassCache)
    # The archive's options for a cluster's executors: only to use one, never to list classes.
    executor_class_options: str = ""
    slow_classes: Path | None = None  # the slow file manager's jar, with --checkpoint-latency
    connector_conf: Mapping[str, str] = field(default_factory=dict)  # --source spark-kafka
    store_conf: Mapping[str, str] = field(default_factory=dict)  # --checkpoint-store hdfs|s3
    temp_dir: Path | None = None  # the session's temporary folder: Spark's scratch space too
    jvm_temp_dir: Path | None = None  # the driver JVM's java.io.tmpdir, one per Python process
    connect_token: str = ""  # --connect: the bearer token of this run's Connect server


@dataclass(frozen=True)
class SessionPlan:
    """Spark's conf for the builder, and the whole environment its JVM is launched with."""

    conf: dict[str, str]
    env: dict[str, str]


def session_plan(
    settings: SparkAppSettings, found: Found, environ: Mapping[str, str], app_name: str = "SparkApp"
) -> SessionPlan:
    """The session's conf and the JVM's environment. Pure: no side effects, nothing read but its
    arguments (and the working folder, to make the settings' paths absolute).

    Usage: `plan = session_plan(settings, found, os.environ)`
    """
    return SessionPlan(
        session_conf(settings, found, app_name), child_env(environ, found.python, found.code_root)
    )


def session_conf(
    settings: SparkAppSettings, found: Found, app_name: str = "SparkApp"
) -> dict[str, str]:
    """Every Spark setting the session is built with (later entries win)."""
    conf = {
        "spark.app.name": app_name,
        "spark.master": settings.master,
        "spark.driver.extraJavaOptions": _driver_java_options(
            found.log4j_file, found.class_cache_options, found.jvm_temp_dir, settings.gc_log
        ),
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": str(settings.ui).lower(),
        "spark.ui.port": str(settings.ui_port),
        "spark.sql.shuffle.partitions": str(settings.shuffle_partitions),
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.sql.adaptive.enabled": "false",  # unsupported in streaming anyway
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.streaming.stopTimeout": "30s",
        "spark.sql.streaming.checkpointFileManagerClass": found.checkpoint_files_class,
    }
    if found.temp_dir is not None:
        # Spark's scratch space (block manager, the jars each start copies, PySpark's files) in
        # the session's folder, which the stop removes, and the next start if the app was
        # killed: in /tmp, every kill -9 left a few MB behind (5 GB in a day of scenarios).
        # java.io.tmpdir has a folder of its own (Found.jvm_temp_dir): a JVM outlives its first
        # session in one Python process (tests), and native libraries unpacked there later
        # (RocksDB's) need the folder to exist.
        conf["spark.local.dir"] = str(found.temp_dir)
        if not settings.checkpoint.is_local:
            # Hadoop's scratch space too: S3A buffers its uploads in ${hadoop.tmp.dir}/s3a,
            # which is /tmp/hadoop-<user> unless set, and stayed there after every s3 run.
            conf["spark.hadoop.hadoop.tmp.dir"] = str(found.temp_dir / "hadoop")
    if not settings.master.startswith("local["):
        conf["spark.executor.extraJavaOptions"] = _executor_java_options(
            found.jvm_temp_dir, found.executor_class_options
        )
    conf |= state_store_conf(settings) | retention_conf(settings)
    if settings.connect:
        conf |= connect_conf(found.connect_token)
    if settings.event_log_dir is not None:
        conf |= _event_log_conf(settings.event_log_dir)
    slow = (
        _slow_checkpoint_conf(settings.checkpoint_latency, found.slow_classes)
        if settings.checkpoint_latency
        else {}
    )
    return conf | _with_jars(slow, found.connector_conf, found.store_conf)


def _with_jars(*parts: Mapping[str, str]) -> dict[str, str]:
    """The parts' settings (the slow file manager's, the connector's, the store's), their
    `spark.jars` lists joined."""
    merged: dict[str, str] = {}
    for part in parts:
        merged |= part
    jars = [part["spark.jars"] for part in parts if part.get("spark.jars")]
    if jars:
        merged["spark.jars"] = ",".join(jars)
    return merged


def child_env(environ: Mapping[str, str], python: str, code_root: Path) -> dict[str, str]:
    """The environment Spark's JVM starts with: `environ` with what its Python workers need to
    run our interpreter and import spark_app from any folder (they inherit the JVM's)."""
    env = dict(environ)
    # Without it the workers run whatever `python3` is on PATH, which may lack kafka-python and pyarrow.
    env.setdefault("PYSPARK_PYTHON", python)
    # Spark starts about nine Python processes per start, each importing pandas, pyarrow and
    # pyspark. Where PYTHONDONTWRITEBYTECODE is set (CI, some shells) each one compiled them from
    # source again (pandas alone 1.55 s instead of 0.43 s); the workers may keep bytecode.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # Loopback only: also keeps Spark from warning that the hostname resolves to 127.0.0.1.
    env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # spark-class's own small JVM (the launcher that builds the driver's command) gets no
    # spark.driver options; without this it left /tmp/hsperfdata_<user> behind.
    env["SPARK_LAUNCHER_OPTS"] = launcher_opts(env)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(code_root) not in paths:
        env["PYTHONPATH"] = os.pathsep.join([str(code_root), *paths])
    return env


def _executor_java_options(jvm_temp_dir: Path | None, class_options: str = "") -> str:
    # A cluster's executors are JVMs of their own on this machine: each unpacked lz4's native
    # library into /tmp and left it there (executor-loss, worker-loss). They share the driver's
    # folder, which goes when the app does.
    options = [f"-Djava.io.tmpdir={jvm_temp_dir}"] if jvm_temp_dir is not None else []
    # The driver's class archive: an executor starts on the same class path and heap size, so
    # it maps the same classes instead of loading them from the jars (two of them at once on
    # two cores were most of a cluster's start).
    return " ".join([*options, C1_ONLY, NO_PERF_FILE, *([class_options] if class_options else [])])


def _driver_java_options(
    log4j: Path,
    class_cache_options: str,
    jvm_temp_dir: Path | None = None,
    gc_log: Path | None = None,
) -> str:
    options = [f"-Dlog4j2.configurationFile=file:{log4j}", C1_ONLY, NO_PERF_FILE]
    if gc_log is not None:
        options += gc_log_options(gc_log)
    if jvm_temp_dir is not None:
        # What the JVM unpacks or creates there (lz4's and RocksDB's native libraries, Spark's
        # artifacts-* folders) stays behind in /tmp when the JVM is killed; a folder of the
        # process's own is removed at exit, and by the next start after a kill.
        options.append(f"-Djava.io.tmpdir={jvm_temp_dir}")
    return " ".join([*options, class_cache_options] if class_cache_options else options)


def _slow_checkpoint_conf(latency: str, jar: Path | None) -> dict[str, str]:
    """Spark writes its checkpoint through our slow file manager (checkpoint_latency.py), from a
    jar on `spark.jars`: the JVMs' class path stays the one their class archive was made for."""
    assert jar is not None, "the slow file manager's jar is looked up with the latency"
    return {
        "spark.sql.streaming.checkpointFileManagerClass": CLASS_NAME,
        "spark.jars": str(jar),
        **LatencySpec.parse(latency).spark_conf(),
    }


def _event_log_conf(folder: Path) -> dict[str, str]:
    """Spark's own record of the run, one JSON event per line; uncompressed so a scenario can
    read it while the app runs (Spark flushes it at every stage's end and executor change)."""
    return {
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": folder.resolve().as_uri(),
        "spark.eventLog.compress": "false",
    }


def log4j_text(spark_log: Path) -> str:
    """A log4j2 config sending Spark's WARN and above to spark.log and nothing to the console."""
    pattern = "[%p] [%d{yyyy-MM-dd HH:mm:ss,SSS}] [%c{1}]: %m%n"
    return "\n".join(
        [
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
        ]
    )
