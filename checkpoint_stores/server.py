"""A store's server as a child JVM: started, ready when it answers, stopped with its data gone.

What hdfs.py and s3.py share. The JVM is `maven_jars.jvm.Jvm` (its own process group, killed
by the kernel when this process dies); everything it writes, its temporary files included
(`java.io.tmpdir`, no `hsperfdata` in /tmp), stays in the data folder, which `stop` removes.

Usage:
    with HdfsServer(data_dir=Path("store-data"), port=8020) as store:
        print(store.url)
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from types import TracebackType

from checkpoint_stores.errors import StoreError
from checkpoint_stores.jars import server_jars
from maven_jars import JarFetchError, find_java
from maven_jars.jvm import NO_PERF_FILE, Jvm

__all__ = ["StoreServer"]


class StoreServer:
    """Subclasses name the store, its main class and arguments, and how to ask it if it is up."""

    kind = ""
    main_class = ""
    heap = "-Xmx256m"

    def __init__(
        self,
        data_dir: Path,
        port: int,
        log_file: Path,
        *,
        progress: bool = True,
        start_timeout: float = 180.0,
    ) -> None:
        self.data_dir, self.port = data_dir.resolve(), port
        self.log_file, self.progress, self.start_timeout = (
            log_file.resolve(),
            progress,
            start_timeout,
        )
        self.jvm: Jvm | None = None
        self.started_in: float | None = None  # seconds from the JVM's start to its first answer

    # -- what a store says ----------------------------------------------------------------------
    @property
    def url(self) -> str:
        raise NotImplementedError

    def arguments(self) -> list[str]:
        raise NotImplementedError

    def prepare(self) -> None:
        """Write what the server reads at start (config files, the bucket's folder)."""

    def answers(self) -> bool:
        raise NotImplementedError

    def extras(self) -> str:
        """What else the ready line names (a web UI), or ""."""
        return ""

    # -- life cycle -----------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.jvm is not None and self.jvm.running

    def start(self) -> None:
        """Fetch the jars (once), start the JVM and wait until the store answers; idempotent."""
        if self.running:
            return
        classpath = os.pathsep.join(map(str, server_jars(self.kind, progress=self.progress)))
        temp = self.data_dir / "tmp"
        temp.mkdir(parents=True, exist_ok=True)
        self.prepare()
        argv = [
            str(_java(self.kind)),
            self.heap,
            NO_PERF_FILE,
            "-XX:+ExitOnOutOfMemoryError",
            "-Djava.awt.headless=true",
            f"-Djava.io.tmpdir={temp}",
            *self.jvm_options(),
            "-cp",
            classpath,
            self.main_class,
            *self.arguments(),
        ]
        began = time.monotonic()
        self.jvm = Jvm.start(argv, output=self.log_file)
        self._wait_until_answering()
        self.started_in = time.monotonic() - began

    def jvm_options(self) -> list[str]:
        return []

    def _wait_until_answering(self) -> None:
        deadline = time.monotonic() + self.start_timeout
        while not self.answers():
            if not self.running:
                self.stop()
                raise StoreError(
                    f"the {self.kind} store exited while starting (code "
                    f"{self.jvm.returncode if self.jvm else None}): {self._last_line()} "
                    f"(log: {self.log_file})"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise StoreError(
                    f"the {self.kind} store did not answer within "
                    f"{self.start_timeout:.0f} s; see {self.log_file}"
                )
            time.sleep(0.2)

    def _last_line(self) -> str:
        try:
            lines = self.log_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "it wrote nothing"
        found = [line for line in lines if "Exception" in line or "ERROR" in line] or lines[-1:]
        return found[0].strip()[:300] if found else "it wrote nothing"

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM to the JVM's group (SIGKILL after `timeout`), then its data folder goes."""
        if self.jvm is not None:
            self.jvm.stop(timeout)
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def __enter__(self) -> StoreServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _java(kind: str) -> Path:
    try:
        return find_java(f"the {kind} store")
    except JarFetchError as error:
        raise StoreError(str(error)) from error
