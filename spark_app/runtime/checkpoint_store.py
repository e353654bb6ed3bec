"""The app's side of a checkpoint store (`--checkpoint-store hdfs|s3`): is it there, what Spark
needs to reach it, and whether a file exists on it.

A store that does not answer is one line before the slow Spark start (a Spark start costs
seconds; Hadoop's clients retry for minutes before failing). Spark reaches the store through
Hadoop's FileSystem: HDFS with the client PySpark ships, S3 with `hadoop-aws` and the AWS SDK
on `spark.jars` (checkpoint_stores/jars.py fetches them once, only when s3 is asked for).

Each takes the checkpoint's place (checkpoint_stores/locations.py), whole.

Usage:
    check_store(settings.checkpoint)              # CheckpointStoreError when it does not answer
    conf = store_conf(settings.checkpoint)        # spark.jars and spark.hadoop.fs.s3a.*
    exists(spark, f"{settings.checkpoint.location}/commits/3")
    committed = commit_check(spark, settings.checkpoint)  # None: read the local folder
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

from checkpoint_stores import CheckpointPlace, StoreError
from spark_app.errors import CheckpointStoreError

__all__ = [
    "check_store",
    "store_conf",
    "exists",
    "commit_check",
    "remote_query_id",
    "remote_pins",
    "remote_commit_format",
]


def check_store(place: CheckpointPlace, timeout: float = 3.0) -> None:
    """Raise CheckpointStoreError in one line when the store's port does not accept a connection."""
    if place.is_local:
        return
    store, url = place.kind, place.store_url
    host, port = place.address
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as error:
        reason = error.strerror or type(error).__name__
    raise CheckpointStoreError(
        f"the {store} checkpoint store at {url} does not answer ({reason}); start it with "
        f"`python -m checkpoint_stores {store} --port {port}`, or give the URL of yours with "
        f"--checkpoint-store-url"
    )


def store_conf(place: CheckpointPlace) -> dict[str, str]:
    """Spark settings for the store: the S3A client's jars and endpoint; nothing for local."""
    store = place.kind
    if place.is_local:
        return {}
    from checkpoint_stores.jars import client_jars

    try:
        jars = client_jars(store)
    except StoreError as error:
        raise CheckpointStoreError(str(error)) from error
    conf = place.hadoop_conf()
    if jars:
        conf["spark.jars"] = ",".join(str(jar) for jar in jars)
    return conf


def exists(spark: Any, uri: str) -> bool:
    """Whether `uri` exists, asked through the session's Hadoop FileSystem (the store's client)."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    return bool(path.getFileSystem(spark._jsc.hadoopConfiguration()).exists(path))


def commit_check(spark: Any, place: CheckpointPlace) -> Callable[[int], bool] | None:
    """How a stop sees that commits/N was written: None reads the local folder; on a store
    Spark's own Hadoop client asks it."""
    if place.is_local:
        return None
    location = place.location
    return lambda batch: exists(spark, f"{location}/commits/{batch}")


def _read_text(spark: Any, uri: str) -> str:
    """A small file on the store, whole, through the session's Hadoop client."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    stream = path.getFileSystem(spark._jsc.hadoopConfiguration()).open(path)
    try:
        return bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream)).decode(
            "utf-8", "replace"
        )
    finally:
        stream.close()


def _newest(spark: Any, folder_uri: str) -> int | None:
    """The highest batch id in a log folder on the store (offsets/, commits/); None if none."""
    jvm = spark._jvm
    folder = jvm.org.apache.hadoop.fs.Path(folder_uri)
    fs = folder.getFileSystem(spark._jsc.hadoopConfiguration())
    if not fs.exists(folder):
        return None
    return max(
        (
            int(name)
            for status in fs.listStatus(folder)
            if (name := status.getPath().getName()).isdigit()
        ),
        default=None,
    )


def _log_lines(spark: Any, location: str, log: str) -> list[str]:
    """The newest `<log>/N` on the store as lines (the version line first); [] when none."""
    newest = _newest(spark, f"{location}/{log}")
    if newest is None:
        return []
    return _read_text(spark, f"{location}/{log}/{newest}").lstrip("\x00").split("\n")


def remote_pins(spark: Any, location: str) -> dict[str, str]:
    """The settings the newest `offsets/N` on the store pins (its batch metadata's conf, what
    Spark re-imposes on a restart); empty for a new checkpoint or one it cannot read, which
    leaves the judgement to Spark."""
    lines = _log_lines(spark, location, "offsets")
    try:
        conf = json.loads(lines[1]).get("conf") or {}
    except (IndexError, ValueError, AttributeError):
        return {}  # new, torn or foreign: Spark's own error will say so
    return {str(key): str(value) for key, value in conf.items()}


def remote_commit_format(spark: Any, location: str) -> int:
    """The checkpoint format of the newest `commits/N` on the store: 2 when it is `v2`, else 1
    (also before the first commit)."""
    lines = _log_lines(spark, location, "commits")
    return 2 if lines and lines[0].strip() == "v2" else 1


def remote_query_id(location: str) -> str | None:
    """The query id in `<location>/metadata` on the store, read through the active session's
    Hadoop client (the exactly-once sink keys its journal on it); None before the first start."""
    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None or not exists(spark, f"{location}/metadata"):
        return None
    first = _read_text(spark, f"{location}/metadata").lstrip("\x00").split("\n", 1)[0]
    value = json.loads(first or "{}")
    return value.get("id") if isinstance(value, dict) else None
