"""The demo's checkpoint store: HDFS or S3 (s3proxy) started beside Kafka, when asked for.

With `--checkpoint-store hdfs|s3` the demo starts `python -m checkpoint_stores KIND` in its
process group, as the scenarios do (launch/store.py), and gives the Spark app the store's URL
once it answers (the Spark app waits for it, the screen does not). The demo's checkpoint line
reads the newest logs from the store, and `d` deletes the checkpoint there. The store is
started empty and removes its data when it stops: a checkpoint on it lives as long as the demo.

Usage:
    store = DemoStore("s3", group, run_dir / "store-data", log_dir)
    store.start(); ...; if store.ready(): settings.spark_settings(store.url)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from checkpoint_stores import CheckpointPlace, StoreKind
from checkpoint_stores.errors import StoreError
from checkpoint_stores.mirror import copy_logs_down, delete
from launch.group import ProcessGroup
from launch.process import ManagedProcess
from launch.store import StoreProcess

__all__ = ["DemoStore"]


class DemoStore:
    """A store the demo started; `url` is None until it answers."""

    def __init__(self, kind: StoreKind, group: ProcessGroup, data_dir: Path, log_dir: Path) -> None:
        self.kind = kind
        self._store = StoreProcess(kind, group, data_dir, log_dir, output_name=f"demo-{kind}-store")
        self._view = log_dir / "store-view"  # the newest logs, copied for the checkpoint line

    @property
    def process(self) -> ManagedProcess | None:
        return self._store.process

    @property
    def url(self) -> str | None:
        return self._store.url

    def start(self) -> ManagedProcess:
        return self._store.start()

    def ready(self) -> bool:
        """Whether the store answers (its ready line is out); remembers its URL when it does."""
        return self._store.ready()

    def location(self, folder: Path) -> str:
        return CheckpointPlace(self.kind, folder, self.url).location

    def shown(self, folder: Path) -> str:
        """The checkpoint's name on the screen: its location on the store."""
        return self.location(folder) if self.url else f"the {self.kind} store (not answering yet)"

    def logs_view(self, folder: Path) -> Path:
        """A local copy of how far the checkpoint got; a folder that does not exist before the
        store answers, or when it does not."""
        if self._store.api is None:
            return self._view / "none"  # no such folder: the screen says there is none yet
        try:
            return copy_logs_down(self._store.api, self.location(folder), self._view)
        except (StoreError, OSError):
            return self._view / "none"

    def delete(self, folder: Path) -> str | None:
        """The hard reset on the store; None when done, else why not, in a few words."""
        if self._store.api is None:
            return f"the {self.kind} store does not answer yet"
        try:
            delete(self._store.api, self.location(folder))
        except StoreError as error:
            return str(error)
        return None

    def close(self) -> None:
        """After the group stopped the store (SIGTERM: it removes its data): the copy goes too."""
        shutil.rmtree(self._view, ignore_errors=True)
