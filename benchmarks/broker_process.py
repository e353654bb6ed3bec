"""A broker as a child process of a benchmark: start it, wait for it, measure its memory, stop it.

Either broker is started as users start it, `python -m kafka_app broker [--kafka apache]`, so
the embedded broker does not share a GIL with the client being measured and Apache Kafka's JVM
runs under the project's own wrapper. Stopping is SIGTERM, a wait, then SIGKILL; Apache Kafka's
JVM dies with its wrapper (PR_SET_PDEATHSIG), so nothing outlives the block.

Usage:
    with topic_broker(work) as bootstrap:
        ...  # the embedded broker with the topic Experience, for a benchmark's Spark apps
    with broker_process(port, prefix="fetch-memory-") as process:
        ...  # `python -m kafka_app broker` listens on 127.0.0.1:port until the block ends
    with started(broker_command(port, data, log, kafka="apache"), port, out) as (process, seconds):
        ...  # Apache Kafka answered ApiVersions `seconds` after its start
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from kafka.admin import KafkaAdminClient, NewTopic  # noqa: E402

from kafka_app.apache.readiness import answers_api_versions  # noqa: E402
from kafka_app.broker.settings import BrokerSettings  # noqa: E402
from kafka_app.kafka_choice import KafkaChoice  # noqa: E402
from launch.commands import broker_command as launch_broker_command  # noqa: E402
from launch.ports import free_port  # noqa: E402

# Either broker's deadline to answer, set by the slower: Apache Kafka formats its storage (a JVM)
# and starts another, 7 to 30 s measured on this shared machine.
APACHE_READY_TIMEOUT_SEC = 180.0
# The Apache wrapper gives its JVM 30 s to stop cleanly before it kills it.
_STOP_TIMEOUT_SEC = 45.0
KAFKAS = ("embedded", "apache")


def broker_command(
    port: int, data_dir: Path, log_dir: Path, kafka: str = "embedded", **options: Any
) -> list[str]:
    """`python -m kafka_app broker` for `kafka` (embedded or apache), listening on 127.0.0.1:port,
    with `options` among its settings (e.g. `max_connections=5000`)."""
    settings = BrokerSettings(port=port, data_dir=data_dir, log_dir=log_dir, **options)
    return launch_broker_command(settings, KafkaChoice(kafka=kafka))


@contextmanager
def topic_broker(
    work: Path, topic: str = "Experience", kafka: str = "embedded", output: Path | None = None
) -> Iterator[str]:
    """`kafka` (the embedded broker unless told) with `topic` made, one partition, data and log
    in `work`, until the block ends; yields its bootstrap address. The Spark benchmarks' apps
    read it; named, not left to `kafka_app broker`'s default, which is Apache Kafka."""
    port = free_port()
    command = broker_command(port, work / "kafka-data", work / "log", kafka=kafka)
    with started(command, port, output):
        admin = KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{port}")
        try:
            admin.create_topics([NewTopic(topic, 1, 1)])
        finally:
            admin.close()
        yield f"127.0.0.1:{port}"


@contextmanager
def broker_process(port: int, prefix: str, **options: Any) -> Iterator[subprocess.Popen[bytes]]:
    """The embedded broker on `port`, data and log in a temporary folder, with `options` among
    its settings."""
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        command = broker_command(port, Path(folder, "data"), Path(folder, "log"), **options)
        with started(command, port) as (process, _seconds):
            yield process


@contextmanager
def started(
    command: Sequence[str],
    port: int,
    output: Path | None = None,
    timeout: float = APACHE_READY_TIMEOUT_SEC,
    cpus: frozenset[int] = frozenset(),
) -> Iterator[tuple[subprocess.Popen[bytes], float]]:
    """Run `command` (on `cpus`, if given, with whatever it starts) until the block ends; yield
    it with the seconds it took to answer ApiVersions.

    Its output goes to `output` (the Apache wrapper's progress bar included), or nowhere."""
    pin = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
    with open(output or os.devnull, "wb") as out:
        began = time.perf_counter()
        process = subprocess.Popen(
            list(command),
            cwd=_REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=pin,
        )
        try:
            wait_for_answer(port, process, timeout)
            yield process, time.perf_counter() - began
        finally:
            stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, wait, SIGKILL: the broker's own clean stop first."""
    process.terminate()
    try:
        process.wait(_STOP_TIMEOUT_SEC)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for_answer(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Return once 127.0.0.1:`port` answers ApiVersions, as every client first asks; raise if
    `process` exits or the deadline passes. (Kafka opens its port only once it serves clients.)"""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the broker exited with code {process.returncode}")
        if answers_api_versions("127.0.0.1", port, timeout=1.0):
            return
        time.sleep(0.02)  # polling the port: nothing to wait on but the next try
    raise RuntimeError(f"the broker did not answer on port {port} within {timeout:.0f} s")


# --- memory (Linux /proc; psutil is not a dependency of the project) ----------------------------


def memory_kb(pid: int, field: str) -> int:
    """A field of /proc/PID/status in kB: VmRSS (now) or VmHWM (peak since the last reset)."""
    return status_field(Path(f"/proc/{pid}/status").read_text(), field)


def status_field(status: str, field: str) -> int:
    """`field`'s value in kB from the text of a /proc/PID/status file."""
    for line in status.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} in the process status")


def descendants(pid: int, parents: Mapping[int, int]) -> list[int]:
    """`pid` and every process below it, given each process's parent (child -> parent)."""
    found, frontier = [pid], [pid]
    while frontier:
        frontier = [
            child for child, parent in parents.items() if parent in frontier and child not in found
        ]
        found += frontier
    return found


def process_parents() -> dict[int, int]:
    """Every live process's parent, from /proc/PID/stat (field 4, after the command's ')')."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
    return parents


def tree_memory_kb(pid: int, field: str) -> int:
    """`field` summed over the broker's process and its children: for Apache Kafka that is our
    Python wrapper and the JVM it started, as a user's machine carries both."""
    total = 0
    for member in descendants(pid, process_parents()):
        try:
            total += memory_kb(member, field)
        except (OSError, RuntimeError):
            continue  # ended, or a kernel thread without memory fields
    return total
