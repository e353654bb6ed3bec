"""A real Spark standalone cluster on this machine: a Master and Workers from PySpark's launcher.

In `local[2]` the driver, the executors and the state store share one JVM, so killing it takes
all of them at once. A standalone cluster has the parts production has: a Master that tracks
Workers, and Workers that start executor JVMs for each application. Killing one Worker (and
its executors) while the driver lives is the failure a cluster is built to survive.

Every process runs in its own process group on loopback, started by PySpark's `spark-class`
(no Spark download needed), and is stopped when the `with` block ends, also on an error:
a Worker's group holds the executors it launched, so stopping the group stops them too.

Usage:
    with StandaloneCluster(ClusterSettings(workers=2), Path("cluster")) as cluster:
        run_app(master=cluster.master_url)   # e.g. `python -m spark_app --master spark://...`
        cluster.kill_worker(0)               # kill -9 the Worker and its executors
        cluster.add_worker()                 # a replacement registers with the Master
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from spark_app.errors import ClusterError
from spark_app.runtime.class_cache import ClassCache, default_cache_dir
from spark_app.runtime.jvm_flags import C1_ONLY, NO_PERF_FILE, launcher_opts
from spark_app.runtime.session import check_java, java_binary

__all__ = ["ClusterSettings", "StandaloneCluster", "spark_home", "run_cluster", "MASTER_LOG"]

HOST = "127.0.0.1"
# The Master's console and log4j output, in the cluster's folder (worker-loss points learners at it).
MASTER_LOG = "master.log"


@dataclass(frozen=True)
class ClusterSettings:
    """The cluster's shape: how many Workers, and what each offers to applications."""

    workers: int = 2
    cores_per_worker: int = 1
    memory_per_worker: str = "1g"
    start_timeout_sec: float = 120.0


def spark_home() -> Path:
    """PySpark's own folder: it carries `bin/spark-class` and every jar a cluster needs."""
    import pyspark  # only its location: importing pyspark starts no JVM

    return Path(pyspark.__file__).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


class _Daemon:
    """One JVM (Master or Worker) in its own process group, with its log in a file."""

    def __init__(self, name: str, args: list[str], log: Path, env: dict[str, str]) -> None:
        self.name = name
        self.log = log
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [str(spark_home() / "bin" / "spark-class"), *args],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def signal_group(self, sig: signal.Signals) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass  # already gone, with everything it started

    def stop(self, timeout_sec: float = 15.0) -> None:
        """SIGTERM the group (the JVM's shutdown hook stops its executors), then SIGKILL."""
        self.signal_group(signal.SIGTERM)
        try:
            self.process.wait(timeout_sec)
        except subprocess.TimeoutExpired:
            pass
        # Executors may outlive a Worker that was told to stop: the group is killed either way.
        self.signal_group(signal.SIGKILL)
        self.process.wait()


class StandaloneCluster:
    """A Master and `settings.workers` Workers on loopback; idempotent start and stop."""

    def __init__(self, settings: ClusterSettings, folder: Path) -> None:
        self.settings = settings
        self.folder = folder
        self.master_port = _free_port()
        self.ui_port = _free_port()
        self.master: _Daemon | None = None
        self.workers: list[_Daemon] = []

    @property
    def master_url(self) -> str:
        return f"spark://{HOST}:{self.master_port}"

    @property
    def ui_url(self) -> str:
        return f"http://{HOST}:{self.ui_port}"

    def __enter__(self) -> StandaloneCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        """Start the Master, then every Worker at once, and wait until all are alive."""
        self.begin()
        self.wait_until_ready()

    def begin(self) -> None:
        """Start the JVMs without waiting for the Workers (the caller may start Kafka meanwhile):
        the Master first, because a Worker that finds no Master retries only after 5 to 15 s."""
        if self.master is not None:
            return
        check_java()
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "local").mkdir(exist_ok=True)  # SPARK_LOCAL_DIRS (_env)
        self.master = _Daemon(
            "master",
            [
                "org.apache.spark.deploy.master.Master",
                "--host",
                HOST,
                "--port",
                str(self.master_port),
                "--webui-port",
                str(self.ui_port),
            ],
            self.folder / MASTER_LOG,
            self._env(),
        )
        self._wait_for(
            lambda status: status.get("status") == "ALIVE", "the Master to start", self.master
        )
        # Together, not one after another: each Worker JVM takes seconds to start.
        for _ in range(self.settings.workers):
            self._launch_worker()

    def wait_until_ready(self) -> None:
        """Until the Master counts every Worker started so far alive."""
        self._wait_for(
            lambda status: status.get("aliveworkers", 0) >= len(self.workers),
            f"{len(self.workers)} workers to register with the Master",
            *self.workers,
        )

    def add_worker(self) -> _Daemon:
        """Start one more Worker and wait until the Master counts it alive."""
        expected = self.alive_workers() + 1
        worker = self._launch_worker()
        self._wait_for(
            lambda status: status.get("aliveworkers", 0) >= expected,
            f"{worker.name} to register with the Master",
            worker,
        )
        return worker

    def _launch_worker(self) -> _Daemon:
        index = len(self.workers)
        worker = _Daemon(
            f"worker-{index}",
            [
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                HOST,
                "--port",
                str(_free_port()),
                "--webui-port",
                str(_free_port()),
                "--cores",
                str(self.settings.cores_per_worker),
                "--memory",
                self.settings.memory_per_worker,
                "--work-dir",
                str(self.folder / f"worker-{index}"),
                self.master_url,
            ],
            self.folder / f"worker-{index}.log",
            self._env(),
        )
        self.workers.append(worker)
        return worker

    def kill_worker(self, index: int) -> None:
        """kill -9 a Worker and the executors it started, as when a machine dies."""
        self.workers[index].signal_group(signal.SIGKILL)
        self.workers[index].process.wait()

    def status(self) -> dict[str, Any]:
        """The Master's own view (its web UI's JSON): workers, their states, applications."""
        try:
            with urllib.request.urlopen(f"{self.ui_url}/json/", timeout=5) as reply:
                return dict(json.load(reply))
        except (urllib.error.URLError, OSError, ValueError):
            return {}

    def alive_workers(self) -> int:
        return int(self.status().get("aliveworkers", 0))

    def stop(self) -> None:
        """Workers first (their executors with them), then the Master; safe to call again."""
        for daemon in [*self.workers, *([self.master] if self.master else [])]:
            daemon.stop()

    def pids(self) -> list[int]:
        return [d.pid for d in [*([self.master] if self.master else []), *self.workers]]

    def _env(self) -> dict[str, str]:
        # Loopback only, and executors run Python workers with this interpreter.
        # SPARK_LOCAL_DIRS: a worker's and its executors' scratch folders (spark-<uuid>) in the
        # cluster's folder; in /tmp they outlived every run.
        return os.environ | {
            "SPARK_HOME": str(spark_home()),
            "SPARK_LOCAL_IP": HOST,
            "SPARK_MASTER_HOST": HOST,
            "PYSPARK_PYTHON": sys.executable,
            "SPARK_LOCAL_DIRS": str(self.folder / "local"),
            "SPARK_DAEMON_JAVA_OPTS": _daemon_java_options(),
            "SPARK_LAUNCHER_OPTS": launcher_opts(os.environ),
        }

    def _wait_for(self, condition: Any, what: str, *starting: _Daemon) -> None:
        deadline = time.monotonic() + self.settings.start_timeout_sec
        while time.monotonic() < deadline:
            if condition(self.status()):
                return
            for daemon in starting:
                if not daemon.alive():
                    raise ClusterError(
                        f"the {daemon.name} JVM exited while waiting for {what}; see {daemon.log}"
                    )
            time.sleep(0.25)
        raise ClusterError(
            f"timed out after {self.settings.start_timeout_sec:g} s waiting for "
            f"{what}; see the logs in {self.folder}"
        )


def _daemon_java_options() -> str:
    """C1 only and no counters file, as the app's JVMs; and the app's class archive where one
    exists: a Master and a Worker start on the class path and heap size the driver has."""
    archive = ClassCache(default_cache_dir(), java_binary() or "java").sharing_options()
    return " ".join([C1_ONLY, NO_PERF_FILE, *([archive] if archive else [])])


def run_cluster(settings: ClusterSettings, folder: Path) -> int:
    """`python -m spark_app cluster`: start, say where, and run until Ctrl-C or SIGTERM."""
    stop = False

    def _stop(_number: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _stop)
    print(
        f"starting a Spark standalone cluster with {settings.workers} workers "
        f"(logs in {folder}) ...",
        flush=True,
    )
    with StandaloneCluster(settings, folder) as cluster:
        print(
            f"master {cluster.master_url}  (web UI {cluster.ui_url})\n"
            f"run the app on it: python -m spark_app --master {cluster.master_url}\n"
            f"Ctrl-C stops the cluster.",
            flush=True,
        )
        try:
            while not stop:
                time.sleep(0.2)
        except KeyboardInterrupt:
            pass
        # An impatient second Ctrl-C (or a SIGTERM that `uv run` passes on) must not cut the
        # shutdown short and leave JVMs behind: the stop below always runs to its end.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        print("stopping the cluster ...", flush=True)
    return 0
