"""A checkpoint store (HDFS or S3) started through its command line, ready once it says so.

The store runs as `python -m checkpoint_stores KIND` (`checkpoint_stores.cli.store_command`) on
a free port, in a run's process group, and prints one ready line once it answers (a NameNode
with a live DataNode, s3proxy answering HTTP): its URL and how long it took. `ready()` looks
for that line without waiting (the demo's screen keeps moving), `wait_ready()` waits for it
(the stage); either way `url` and `api` are set from then on. The group stops it with SIGTERM,
and it removes its data when it stops.

Usage:
    store = StoreProcess("s3", group, run_dir / "store-data", log_dir)
    store.start()
    url = store.wait_ready(timeout=180)      # or poll: `if store.ready(): store.url`
"""

from __future__ import annotations

from pathlib import Path

from checkpoint_stores import StoreKind
from checkpoint_stores.cli import parse_ready_line, store_command, web_address
from checkpoint_stores.mirror import StoreApi
from launch.group import ProcessGroup
from launch.ports import free_port
from launch.process import ManagedProcess
from launch.waiting import Progress

__all__ = ["StoreProcess"]


class StoreProcess:
    """One store of a run; `url`, `started_in` and `api` are None until it answered."""

    def __init__(
        self,
        kind: StoreKind,
        group: ProcessGroup,
        data_dir: Path,
        log_dir: Path,
        *,
        output_name: str | None = None,
    ) -> None:
        self.kind = kind
        self._group, self._data_dir, self._log_dir = group, data_dir, log_dir
        self._output_name = output_name  # its console's name in the group's folder
        self.process: ManagedProcess | None = None
        self.url: str | None = None
        self.started_in: float | None = None  # seconds the store took to answer, its own figure
        self.api: StoreApi | None = None  # its HTTP API (WebHDFS, S3), to read the checkpoint

    def start(self) -> ManagedProcess:
        """Start the store's command in the group as `KIND-store`; returns at once."""
        argv = store_command(self.kind, free_port(), self._data_dir, self._log_dir)
        self.process = self._group.start(f"{self.kind}-store", argv, output_name=self._output_name)
        return self.process

    def ready(self) -> bool:
        """Whether the store answers (its ready line is out); notes its URL when it does."""
        if self.url is None and self.process is not None:
            self._take(self.process.output())
        return self.url is not None

    def wait_ready(self, timeout: float, progress: Progress | None = None) -> str:
        """Wait for the ready line; the store's URL. Raises ProcessError with its last lines if
        it exits first, WaitTimeout if `timeout` passes."""
        assert self.process is not None, "start the store first"
        url = self.process.wait_for(
            self._take,
            timeout=timeout,
            what=f"the {self.kind} store to answer",
            progress=progress,
        )
        assert isinstance(url, str)
        return url

    def _take(self, text: str) -> str | None:
        """The URL in `text`'s ready line, noted with the start time and the API; None before."""
        ready = parse_ready_line(text)
        if ready is None:
            return None
        _, self.url, self.started_in = ready
        self.api = StoreApi(self.kind, web_address(text) or self.url)
        return self.url
