"""The app's side of a checkpoint store (`--checkpoint-store hdfs|s3`): is it there, what Spark
needs to reach it, and whether a file exists on it.

A store that does not answer is one line before the slow Spark start (a Spark start costs
seconds; Hadoop's clients retry for minutes before failing). Spark reaches the store through
Hadoop's FileSystem: HDFS with the client PySpark ships, S3 with `hadoop-aws` and the AWS SDK
on `spark.jars` (checkpoint_stores/jars.py fetches them once, only when s3 is asked for).

Usage:
    check_store(settings)                      # CheckpointStoreError when it does not answer
    conf = store_conf(settings)                # spark.jars and spark.hadoop.fs.s3a.*
    exists(spark, f"{settings.checkpoint_location}/commits/3")
"""

from __future__ import annotations

import socket
from typing import Any

from checkpoint_stores import StoreError, hadoop_conf, store_address
from checkpoint_stores.locations import default_url
from spark_app.errors import CheckpointStoreError
from spark_app.settings import SparkAppSettings

__all__ = ["check_store", "store_conf", "exists", "remote_query_id"]


def check_store(settings: SparkAppSettings, timeout: float = 3.0) -> None:
    """Raise CheckpointStoreError in one line when the store's port does not accept a connection."""
    store = settings.checkpoint_store
    if store == "local":
        return
    url = settings.checkpoint_store_url or default_url(store)
    host, port = store_address(store, url)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as error:
        reason = error.strerror or type(error).__name__
    raise CheckpointStoreError(
        f"the {store} checkpoint store at {url} does not answer ({reason}); start it with "
        f"`python -m checkpoint_stores {store} --port {port}`, or give the URL of yours with "
        f"--checkpoint-store-url")


def store_conf(settings: SparkAppSettings) -> dict[str, str]:
    """Spark settings for the store: the S3A client's jars and endpoint; nothing for local."""
    store = settings.checkpoint_store
    if store == "local":
        return {}
    from checkpoint_stores.jars import client_jars

    try:
        jars = client_jars(store)
    except StoreError as error:
        raise CheckpointStoreError(str(error)) from error
    conf = hadoop_conf(store, settings.checkpoint_store_url)
    if jars:
        conf["spark.jars"] = ",".join(str(jar) for jar in jars)
    return conf


def exists(spark: Any, uri: str) -> bool:
    """Whether `uri` exists, asked through the session's Hadoop FileSystem (the store's client)."""
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    return bool(path.getFileSystem(spark._jsc.hadoopConfiguration()).exists(path))


def remote_query_id(location: str) -> str | None:
    """The query id in `<location>/metadata` on the store, read through the active session's
    Hadoop client (the exactly-once sink keys its journal on it); None before the first start."""
    import json

    from pyspark.sql import SparkSession

    spark = SparkSession.getActiveSession()
    if spark is None or not exists(spark, f"{location}/metadata"):
        return None
    jvm = spark._jvm
    path = jvm.org.apache.hadoop.fs.Path(f"{location}/metadata")
    stream = path.getFileSystem(spark._jsc.hadoopConfiguration()).open(path)
    try:
        reader = jvm.java.io.BufferedReader(jvm.java.io.InputStreamReader(stream, "UTF-8"))
        first = (reader.readLine() or "{}").lstrip("\x00")
    finally:
        stream.close()
    value = json.loads(first)
    return value.get("id") if isinstance(value, dict) else None
