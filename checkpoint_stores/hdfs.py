"""HDFS as Hadoop tests it: a MiniDFSCluster (one NameNode, one DataNode) in one JVM.

Started with the CLI the minicluster jar carries, `MiniHadoopClusterManager -nomr` (HDFS only,
no MapReduce), so no Java of ours is compiled. Ready when the NameNode's JMX says a DataNode is
live and safe mode is off: only then can a client write a block (an open RPC port is not enough).

Usage:
    with HdfsServer(Path("store-data"), port=8020, log_file=Path("log/hdfs-store.log")) as hdfs:
        print(hdfs.url)    # hdfs://127.0.0.1:8020
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from pathlib import Path

from checkpoint_stores.server import StoreServer

__all__ = ["HdfsServer"]

_MAIN = "org.apache.hadoop.mapreduce.MiniHadoopClusterManager"
_NAMENODE_INFO = "Hadoop:service=NameNode,name=NameNodeInfo"


def _free_port() -> int:
    # The NameNode's web port, asked of the OS (launch/ports.py's free_port does the
    # same, but this package must not import launch, which imports it).
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HdfsServer(StoreServer):
    """A NameNode on 127.0.0.1:`port` (RPC) with one DataNode, its blocks in the data folder."""

    kind = "hdfs"
    main_class = _MAIN

    def __init__(self, data_dir: Path, port: int, log_file: Path, **options: object) -> None:
        super().__init__(data_dir, port, log_file, **options)  # type: ignore[arg-type]
        self.http_port = _free_port()

    @property
    def url(self) -> str:
        return f"hdfs://127.0.0.1:{self.port}"

    def arguments(self) -> list[str]:
        # -format: a fresh file system every start (the data folder is removed at stop anyway).
        return [
            "-nomr",
            "-format",
            "-nnport",
            str(self.port),
            "-nnhttpport",
            str(self.http_port),
            "-D",
            f"hdfs.minidfs.basedir={self.data_dir / 'dfs'}",
            # Loopback only, like every other process the project starts.
            "-D",
            "dfs.namenode.rpc-bind-host=127.0.0.1",
            "-D",
            "dfs.datanode.address=127.0.0.1:0",
        ]

    def extras(self) -> str:
        return f"NameNode web UI and WebHDFS at http://127.0.0.1:{self.http_port}, "

    def answers(self) -> bool:
        info = _jmx(self.http_port, _NAMENODE_INFO)
        return (
            info is not None
            and info.get("Safemode") == ""
            and info.get("LiveNodes") not in (None, "{}")
        )


def _jmx(port: int, bean: str) -> dict[str, object] | None:
    """One bean of the NameNode's /jmx servlet, or None while it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/jmx?qry={bean}", timeout=2) as reply:
            beans = json.loads(reply.read()).get("beans", [])
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return beans[0] if beans else None
