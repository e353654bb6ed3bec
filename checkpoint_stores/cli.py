"""`python -m checkpoint_stores hdfs|s3`: run one store in the foreground until stopped.

It prints one ready line (`ready_line`, read back by the scenarios with `parse_ready_line`),
then waits. SIGTERM, SIGHUP and Ctrl-C stop the JVM and remove the data folder; if this
process is killed outright the kernel kills the JVM (maven_jars/jvm.py) and the next start in
the same folder removes what was left. Exit 0 after a stop, 1 when the store failed, 2 when
`--data-dir` holds files a store did not write (it would be removed at the stop).

Usage: `python -m checkpoint_stores s3 --port 9000 --data-dir store-data/s3`
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from checkpoint_stores.errors import StoreError
from checkpoint_stores.locations import DEFAULT_PORTS, REMOTE_STORES
from checkpoint_stores.server import StoreServer

__all__ = [
    "main",
    "main_parser",
    "ready_line",
    "parse_ready_line",
    "web_address",
    "make_server",
    "check_data_dir",
    "store_command",
]

_READY = re.compile(r"^(hdfs|s3) store ready at (\S+) in ([\d.]+) s\b")


def store_command(store: str, port: int, data_dir: Path, log_dir: Path) -> list[str]:
    """How our other processes start a store (the stage, the demo, the benchmarks): this
    command, whose ready line they then wait for."""
    return [
        sys.executable,
        "-m",
        "checkpoint_stores",
        store,
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--log-dir",
        str(log_dir),
    ]


def ready_line(server: StoreServer) -> str:
    return (
        f"{server.kind} store ready at {server.url} in {server.started_in or 0.0:.1f} s "
        f"({server.extras()}JVM pid {server.jvm.pid if server.jvm else '?'}, data in {server.data_dir}); "
        f"Ctrl-C stops it and removes the data"
    )


def parse_ready_line(text: str) -> tuple[str, str, float] | None:
    """(store, url, seconds to start) from the first ready line in `text`, or None."""
    for line in text.splitlines():
        match = _READY.match(line)
        if match:
            return match.group(1), match.group(2), float(match.group(3))
    return None


def web_address(text: str) -> str | None:
    """Where the store answers HTTP, from its ready line: WebHDFS for hdfs, the endpoint for s3."""
    ready = parse_ready_line(text)
    if ready is None:
        return None
    web = re.search(r"WebHDFS at (http://\S+),", text)
    return web.group(1) if web else ready[1]


def make_server(store: str, data_dir: Path, port: int, log_dir: Path) -> StoreServer:
    # Imported here: `python -m checkpoint_stores --help` needs neither.
    if store == "hdfs":
        from checkpoint_stores.hdfs import HdfsServer

        return HdfsServer(data_dir, port, log_dir / "hdfs-store.log")
    from checkpoint_stores.s3 import S3Server

    return S3Server(data_dir, port, log_dir / "s3-store.log")


def main_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m checkpoint_stores",
        description="Run a checkpoint store (HDFS or an S3 endpoint) "
        "until Ctrl-C or SIGTERM; its data goes with it.",
    )
    p.add_argument("store", choices=REMOTE_STORES)
    p.add_argument(
        "--port",
        type=int,
        default=None,
        help="where it listens on 127.0.0.1 (default: "
        + ", ".join(f"{port} for {store}" for store, port in DEFAULT_PORTS.items())
        + ")",
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="its data, removed at stop (default store-data/STORE)",
    )
    p.add_argument("--log-dir", type=Path, default=Path("log"), help="its log file's folder")
    return p


# What a store leaves in its data folder (server.py, hdfs.py, s3.py): a folder holding anything
# else is not ours to remove.
_OURS = {"tmp", "dfs", "blobs", "s3proxy.properties", "logback.xml"}


def check_data_dir(folder: Path) -> None:
    """StoreError when `folder` holds files a store did not write: it is removed at the stop."""
    if not folder.is_dir():
        return
    others = sorted(set(os.listdir(folder)) - _OURS)
    if others:
        raise StoreError(
            f"--data-dir {folder} holds {', '.join(others[:3])}, which the store did "
            f"not write; give a new or empty folder: the store removes it when it stops"
        )


def _stop_on_signal(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    data_dir = args.data_dir or Path("store-data") / args.store
    try:
        check_data_dir(data_dir)
    except StoreError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    shutil.rmtree(data_dir, ignore_errors=True)  # a killed run's leftovers
    server = make_server(args.store, data_dir, args.port or DEFAULT_PORTS[args.store], args.log_dir)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _stop_on_signal)
    try:
        server.start()
        print(ready_line(server), flush=True)
        while server.running:
            time.sleep(0.5)
        print(
            f"error: the {args.store} store's JVM exited with code "
            f"{server.jvm.returncode if server.jvm else None}; see {server.log_file}",
            file=sys.stderr,
        )
        return 1
    except StoreError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"stopping the {args.store} store", flush=True)
        return 0
    finally:
        server.stop()
