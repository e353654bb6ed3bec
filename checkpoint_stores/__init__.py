"""Checkpoint storage the project starts itself, like Apache Kafka: HDFS and an S3 object store.

Production keeps a streaming checkpoint on storage every node shares (seed 000's story is a
checkpoint on S3). Here `hdfs` is Hadoop's MiniDFSCluster (a real NameNode and DataNode in one
JVM) and `s3` is s3proxy (an S3 API server backed by a folder), both from Maven Central's jars,
each a JVM in its own process group that is gone, with its data, when we stop.

Neither app's package: the Spark app reads where its checkpoint lives (`CheckpointPlace`, in
`locations`) and the client jars (`jars`), the scenarios start a server through
`python -m checkpoint_stores` (`cli`).

Usage:
    python -m checkpoint_stores hdfs --port 8020      # foreground; Ctrl-C stops it
    python -m spark_app --checkpoint-store hdfs      # the checkpoint at hdfs://127.0.0.1:8020/…
"""

from checkpoint_stores.errors import StoreError
from checkpoint_stores.locations import (
    REMOTE_STORES,
    STORES,
    CheckpointPlace,
    StoreKind,
    default_url,
    store_address,
)

__all__ = [
    "CheckpointPlace",
    "REMOTE_STORES",
    "STORES",
    "StoreError",
    "StoreKind",
    "default_url",
    "store_address",
]
