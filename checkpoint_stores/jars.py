"""The stores' jars from Maven Central, fetched once into the project's cache (maven_jars).

Servers: `hadoop-client-minicluster` (MiniDFSCluster, 7 jars, 108 MB) and `s3proxy`
(127 jars, 39 MB). Spark's client for S3: `hadoop-aws` with the AWS SDK's `bundle` it depends
on (4 jars, 690 MB, the bundle alone 686 MB), so it is fetched only when s3 is asked for. HDFS
needs no client jar: PySpark ships Hadoop's client (hadoop-client-api/-runtime 3.5.0).

Usage: `python -m checkpoint_stores.jars hdfs` (or `s3`) fetches once, with progress; in code,
`server_jars("hdfs")`, `client_jars("s3")`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from checkpoint_stores.errors import StoreError
from maven_jars import JarFetchError, resolve_jars
from maven_jars.prefetch import prefetch_main

__all__ = ["SERVERS", "CLIENTS", "server_jars", "client_jars"]

# Hadoop 3.5.0 is the client PySpark 4.2.0 (locked) ships: server and S3A match it.
HADOOP = "3.5.0"
SERVERS = {
    "hdfs": f"org.apache.hadoop:hadoop-client-minicluster:{HADOOP}",
    "s3": "org.gaul:s3proxy:2.7.0",
}
CLIENTS = {"s3": f"org.apache.hadoop:hadoop-aws:{HADOOP}"}


def _fetch(coordinate: str, progress: bool) -> list[Path]:
    name = coordinate.split(":", 1)[1].replace(":", "-")  # e.g. "s3proxy-2.7.0"
    try:
        return resolve_jars([coordinate], name=name, progress=progress)
    except JarFetchError as error:
        raise StoreError(str(error)) from error


def server_jars(store: str, *, progress: bool = True) -> list[Path]:
    """The jars the store's server runs on."""
    return _fetch(SERVERS[store], progress)


def client_jars(store: str, *, progress: bool = True) -> list[Path]:
    """The jars Spark needs on its classpath to write a checkpoint there (none for hdfs)."""
    return _fetch(CLIENTS[store], progress) if store in CLIENTS else []


def main(argv: Sequence[str] | None = None) -> int:
    return prefetch_main(
        argv,
        prog="python -m checkpoint_stores.jars",
        description="Fetch a checkpoint store's jars (server and Spark's client) "
        "once into the project's cache.",
        options=_store_option,
        errors=(StoreError,),
        what=lambda args: f"checkpoint store {args.store}",
        fetch=lambda args: server_jars(args.store) + client_jars(args.store),
    )


def _store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("store", choices=sorted(SERVERS))


if __name__ == "__main__":
    sys.exit(main())
