"""The stage's checkpoint store: HDFS or S3 started before the Spark app, stopped after it.

Which store holds the checkpoint is the run's setting (`RunSettings.checkpoint_store`), read
here and nowhere else. The store runs through its command line, `python -m checkpoint_stores`,
in the stage's process group like Kafka's broker, and lives as long as the scenario: the app is
killed and restarted on it. Ready when the command prints its ready line, which it does only
after the store answered (a NameNode with a live DataNode, s3proxy answering HTTP). The stage
stops it with SIGTERM before anything else, so it removes its data; a kill -9 of the scenario
leaves its data folder in the scenario's own folder, which the next run starts by removing.

Usage:
    url = stage.store.start()     # None for "local"; else hdfs://127.0.0.1:PORT or http://…
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from checkpoint_stores import checkpoint_location
from checkpoint_stores.cli import parse_ready_line, web_address
from checkpoint_stores.mirror import StoreApi, copy_down, delete
from scenarios.engine.apps import free_port
from scenarios.engine.processes import ManagedProcess

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
    return (f"reads its checkpoint folder without Spark, which works on a local folder only so "
            f"far, not on {store}: run it without --checkpoint-store (runs on "
            f"{', '.join(stores)})")


class StorePart:
    """The run's checkpoint store; nothing at all for a local checkpoint."""

    def __init__(self, stage: Stage) -> None:
        self._stage = stage
        self.process: ManagedProcess | None = None
        self.url: str | None = None
        self.started_in: float | None = None  # seconds the store took to answer
        self.api: StoreApi | None = None  # its HTTP API, for reading the checkpoint

    def location(self, folder: Path) -> str:
        """Where the app's checkpoint `folder` lives on the store."""
        return checkpoint_location(self._stage.settings.checkpoint_store, self.url, folder)

    def checkpoint_copy(self, folder: Path, dest: Path) -> Path:
        """The checkpoint as a local folder: `folder` itself when local, else a fresh copy of
        the store's into `dest`, read through the store's API (WebHDFS, S3)."""
        if self.api is None:
            return folder
        return copy_down(self.api, self.location(folder), dest)

    def delete_checkpoint(self, folder: Path) -> None:
        """Remove the checkpoint on the store (the caller removes a local one)."""
        if self.api is not None:
            delete(self.api, self.location(folder))

    def start(self) -> str | None:
        """Start the store once (idempotent); its URL for the app, None when local."""
        kind = self._stage.settings.checkpoint_store
        if kind == "local" or self.url is not None:
            return self.url
        stage = self._stage
        argv = [sys.executable, "-m", "checkpoint_stores", kind, "--port", str(free_port()),
                "--data-dir", str(stage.folders.root / "store-data"),
                "--log-dir", str(stage.folders.log)]
        with stage.spent.timed(f"{kind} store start"):
            self.process = stage.group.start(f"{kind}-store", argv)
            ready = self.process.wait_for(parse_ready_line, timeout=_START_TIMEOUT_SEC,
                                          what=f"the {kind} store to answer",
                                          progress=stage.narrator.waiting)
        _, self.url, self.started_in = ready  # type: ignore[misc]
        self.api = StoreApi(kind, web_address(self.process.output()) or self.url)
        stage.fact("checkpoint_store", {"kind": kind, "url": self.url,
                                        "start_sec": self.started_in})
        stage.say(f"{kind} checkpoint store ready at {self.url} in {self.started_in:.1f} s")
        return self.url

    def stop(self) -> None:
        """SIGTERM: the store stops its JVM and removes its data (idempotent)."""
        if self.process is not None and self.process.running:
            self.process.terminate(timeout=60)
