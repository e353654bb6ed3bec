"""A checkpoint on HDFS or S3 copied to a local folder by Hadoop's own client, the one Spark
writes it with, so that `inspect` reads it like a local one.

Hadoop's shell (`FsShell -get`, what `hadoop fs -get` runs) from PySpark's own jars, plus S3A's
jars for s3: it needs only the address Spark was given (the NameNode's RPC port, the S3
endpoint), so it reads a user's own store as well as ours. scenarios read our stores through
their HTTP APIs instead (checkpoint_stores/mirror.py), which needs no JVM but the WebHDFS port.

FsShell reads its settings from a `core-site.xml` on its class path and refuses to start
without one: ours holds what Spark's session gets as `spark.hadoop.*` (S3A's endpoint, keys,
path-style requests) and keeps Hadoop's temporary files beside the copy, out of /tmp.

Usage:
    copy = copy_down(settings.checkpoint, Path("log/inspect/copy"))
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from xml.sax.saxutils import escape

from checkpoint_stores import CheckpointPlace
from maven_jars import JarFetchError, find_java
from maven_jars.jvm import NO_PERF_FILE, Jvm
from spark_app.errors import CheckpointStoreError
from spark_app.runtime.checkpoint_store import store_conf
from spark_app.runtime.class_cache import pyspark_jars

__all__ = ["NoCheckpointThere", "copy_down"]

_TIMEOUT_SEC = 600.0  # a JVM start and one request a file: minutes only for a very large state
_SPARK_PREFIX = "spark.hadoop."


class NoCheckpointThere(CheckpointStoreError):
    """Nothing under the checkpoint's location: a new query would start there."""


def copy_down(place: CheckpointPlace, dest: Path) -> Path:
    """Copy the checkpoint at `place.location` into `dest` (emptied first).
    NoCheckpointThere when there is nothing, else CheckpointStoreError in one line when the
    copy fails."""
    location = place.location
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    work = dest.with_name(f"{dest.name}.hadoop")  # core-site.xml, Hadoop's temp files, the log
    shutil.rmtree(work, ignore_errors=True)
    try:
        # A glob: each of the checkpoint's folders and files lands directly under `dest`.
        code = _run_shell(place, work, [f"{location}/*"], dest)
        log = (work / "fs-shell.log").read_text(encoding="utf-8", errors="replace")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if code != 0 or not any(dest.iterdir()):
        raise _failure(location, log)
    return dest


def _run_shell(place: CheckpointPlace, work: Path, sources: list[str], dest: Path) -> int:
    """FsShell -get, in its own process group and dead with us; its exit code."""
    try:
        java = find_java("Hadoop's client")
    except JarFetchError as error:
        raise CheckpointStoreError(str(error)) from error
    conf = store_conf(place)
    extra = [jar for jar in conf.pop("spark.jars", "").split(",") if jar]
    _write_core_site(work, {key.removeprefix(_SPARK_PREFIX): value for key, value in conf.items()})
    classpath = os.pathsep.join([str(work), f"{pyspark_jars()}/*", *extra])
    jvm = Jvm.start(
        [
            str(java),
            "-Xmx256m",
            NO_PERF_FILE,
            f"-Djava.io.tmpdir={work}",
            "-cp",
            classpath,
            "org.apache.hadoop.fs.FsShell",
            "-get",
            *sources,
            str(dest),
        ],
        output=work / "fs-shell.log",
    )
    try:
        code = jvm.wait(_TIMEOUT_SEC)
        return -1 if code is None else code
    finally:
        jvm.stop(timeout=5)  # a Ctrl-C, or the timeout: the JVM goes with the command


def _write_core_site(work: Path, settings: dict[str, str]) -> None:
    work.mkdir(parents=True, exist_ok=True)
    settings = {"hadoop.tmp.dir": str(work / "hadoop"), **settings}
    properties = "".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>\n"
        for k, v in settings.items()
    )
    (work / "core-site.xml").write_text(
        f'<?xml version="1.0"?>\n<configuration>\n{properties}</configuration>\n', encoding="utf-8"
    )


def _failure(location: str, log: str) -> CheckpointStoreError:
    """A failed copy: no checkpoint there, or the shell's own first error in one line."""
    said = [
        line.strip()
        for line in log.splitlines()
        if line.startswith("get:") or "Exception" in line.split(" ", 1)[0]
    ]
    if not said or any("No such file or directory" in line for line in said):
        return NoCheckpointThere(f"no checkpoint at {location}")
    return CheckpointStoreError(
        f"could not copy the checkpoint at {location} with Hadoop's client: {said[0][:300]}"
    )
