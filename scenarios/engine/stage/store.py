"""The stage's checkpoint store: HDFS or S3 started before the Spark app, stopped after it.

Which store holds the checkpoint is the run's setting (`RunSettings.checkpoint_store`), read
here and nowhere else. The store runs through its command line, `python -m checkpoint_stores`,
in the stage's process group like Kafka's broker, and lives as long as the scenario: the app is
killed and restarted on it. Ready when the command prints its ready line, which it does only
after the store answered (a NameNode with a live DataNode, s3proxy answering HTTP). The stage
stops it with SIGTERM before anything else, so it removes its data; a kill -9 of the scenario
leaves its data folder in the scenario's own folder, which the next run starts by removing.

With `behind_proxy=True` the app reaches the store through a TCP proxy of ours
(scenarios/engine/faults/tcp_proxy.py, kafka-outage's), which `cut()` and `restore()` break
and mend: the store goes away for the app only, while the stage still reads the checkpoint
through the store's own address.

Usage:
    url = stage.store.start()     # None for "local"; else hdfs://127.0.0.1:PORT or http://…
    stage.store.start(behind_proxy=True); stage.app.start(); stage.store.cut(); stage.store.restore()
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from checkpoint_stores import CheckpointPlace
from checkpoint_stores.errors import StoreError
from checkpoint_stores.mirror import StoreApi, copy_down, copy_logs_down, delete, list_files
from launch.ports import free_port
from launch.process import ManagedProcess
from launch.store import StoreProcess
from scenarios.engine.faults.tcp_proxy import Tap, TcpProxy
from scenarios.errors import StepFailed

if TYPE_CHECKING:
    from scenarios.engine.settings import RunSettings
    from scenarios.engine.stage import Stage

__all__ = ["StorePart", "store_unavailable"]

# A cold MiniDFSCluster answered in 9-14 s on two busy cores; a fetch is done beforehand
# (jar_prefetch.py), so this bounds a JVM start only.
_START_TIMEOUT_SEC = 180.0


def store_unavailable(settings: RunSettings, stores: tuple[str, ...]) -> str | None:
    """Why a scenario that runs on `stores` cannot run on this run's store, in one line."""
    store = settings.checkpoint_store
    if store in stores:
        return None
    return (
        f"reads its checkpoint folder without Spark, which works on a local folder only so "
        f"far, not on {store}: run it without --checkpoint-store (runs on "
        f"{', '.join(stores)})"
    )


class StorePart:
    """The run's checkpoint store; nothing at all for a local checkpoint."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage
        self.process: ManagedProcess | None = None
        self.url: str | None = None
        self.started_in: float | None = None  # seconds the store took to answer
        self.api: StoreApi | None = None  # its HTTP API, for reading the checkpoint
        self.proxy: TcpProxy | None = None  # between the app and the store, when asked for
        self._view = stage.folders.root / "store-view"  # logs_view's copy, removed at the stop

    def place(self, folder: Path) -> CheckpointPlace:
        """Where the app's checkpoint `folder` lives: here, or on the store at its URL (the
        proxy's, when the store is behind one)."""
        kind = self._stage.settings.checkpoint_store
        return CheckpointPlace(kind, folder, None if kind == "local" else self.url)

    def location(self, folder: Path) -> str:
        """Where the app's checkpoint `folder` lives on the store, as Spark is given it."""
        return self.place(folder).location

    def checkpoint_copy(self, folder: Path, dest: Path) -> Path:
        """The checkpoint as a local folder: `folder` itself when local, else a fresh copy of
        the store's into `dest`, read through the store's API (WebHDFS, S3)."""
        if self.api is None:
            return folder
        return copy_down(self.api, self.location(folder), dest)

    def logs_view(self, folder: Path, dest: Path | None = None) -> Path:
        """A local folder with how far the app's checkpoint `folder` got, for the checkpoint
        reader: `folder` itself when local, else a fresh copy of the store's logs (the
        timeline's committed line on every store) into `dest` (default: the stage's own)."""
        if self.api is None or self.process is None or not self.process.running:
            return folder
        try:
            return copy_logs_down(self.api, self.location(folder), dest or self._view)
        except (StoreError, OSError):
            return folder  # the store is stopping, or a log was just cleaned up: a gap

    def files(self, folder: Path) -> list[str]:
        """The files under the app's `folder`, relative to it, wherever the checkpoint is."""
        if self.api is None:
            return (
                [str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()]
                if folder.is_dir()
                else []
            )
        return list_files(self.api, self.location(folder))

    def newest_batches(self, folder: Path) -> tuple[int, int]:
        """The highest batch id in `offsets/` and in `commits/` of the app's checkpoint
        `folder` (-1 when none), from the names alone: the kills aim with it every few
        milliseconds. Local: two directory reads; on a store: a listing of each log folder,
        not of the whole checkpoint and its state."""
        return self._highest(folder / "offsets"), self._highest(folder / "commits")

    def _highest(self, log: Path) -> int:
        if self.api is None:
            try:
                names = os.listdir(log)
            except FileNotFoundError:
                names = []
        else:
            names = list_files(self.api, self.location(log))
        return max((int(name) for name in names if name.isdigit()), default=-1)

    def delete_checkpoint(self, folder: Path) -> None:
        """Remove the checkpoint on the store (the caller removes a local one)."""
        if self.api is not None:
            delete(self.api, self.location(folder))

    def start(self, behind_proxy: bool = False, tap: Tap | None = None) -> str | None:
        """Start the store once (idempotent); its URL for the app, None when local. With
        `behind_proxy` (before the app's first start) that URL is a proxy's, which `cut()` cuts;
        a `tap` on that proxy sees every request and may delay it (slow-checkpoint on s3)."""
        kind = self._stage.settings.checkpoint_store
        if kind == "local" or self.url is not None:
            if behind_proxy and self.proxy is None and kind != "local":
                raise StepFailed(
                    "put the store behind its proxy before the app's first start: "
                    "call stage.store.start(behind_proxy=True) first"
                )
            return self.url
        stage = self._stage
        store = StoreProcess(
            kind, stage.group, stage.folders.root / "store-data", stage.folders.log
        )
        with stage.spent.timed(f"{kind} store start"):
            self.process = store.start()
            self.url = store.wait_ready(_START_TIMEOUT_SEC, progress=stage.waiting)
        self.started_in, self.api = store.started_in, store.api
        stage.fact(
            "checkpoint_store", {"kind": kind, "url": self.url, "start_sec": self.started_in}
        )
        stage.say(f"{kind} checkpoint store ready at {self.url} in {self.started_in:.1f} s")
        if behind_proxy or tap is not None:
            self.url = self._behind_proxy(self.url, tap)
        return self.url

    def _behind_proxy(self, url: str, tap: Tap | None = None) -> str:
        """A proxy from a free port to the store's; the store's URL with the proxy's port."""
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port
        if port is None:
            raise StepFailed(f"the store's URL {url} names no port to put a proxy in front of")
        self.proxy = TcpProxy(free_port(), (host, port), tap=tap).start()
        proxied = urlunsplit(parts._replace(netloc=f"{host}:{self.proxy.listen_port}"))
        self._stage.say(f"the app reaches the store through a proxy at {proxied}")
        return proxied

    def _cuttable(self) -> TcpProxy:
        if self.proxy is None:
            raise StepFailed(
                "the store can be cut only when started with stage.store.start(behind_proxy=True)"
            )
        return self.proxy

    def cut(self) -> None:
        """The store goes away for the app: its connections are reset, new ones refused."""
        self._cuttable().cut()
        self._stage.timeline.event("store cut", "crash")
        self._stage.say("the network between the Spark app and the checkpoint store is cut")

    def restore(self) -> None:
        self._cuttable().restore()
        self._stage.timeline.event("store back", "start")
        self._stage.say("the network between the Spark app and the checkpoint store is back")

    def stop(self) -> None:
        """SIGTERM: the store stops its JVM and removes its data (idempotent); the proxy closes."""
        if self.proxy is not None:
            self.proxy.stop()
        if self.process is not None and self.process.running:
            self.process.terminate(timeout=60)

    def remove_view(self) -> None:
        """Remove logs_view's copy, once the timeline has stopped reading it."""
        shutil.rmtree(self._view, ignore_errors=True)
