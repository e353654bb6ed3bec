"""Processes a previous run left behind, found before a new run starts beside them.

An app that outlived its demo (a terminal closed while it ran, a kill -9 of the demo itself)
still holds port 9092 or still writes to `log/` and `checkpoints/`. Starting again beside it
fails in a confusing way: the new producer cannot bind its port, and the old Spark app's output
log looks like the new run's. So the demo looks first, and names what it found and how to stop
it. It reads /proc, as `ss -p` and `lsof` do; where there is none (macOS) it finds only a taken
port, by binding it, and nothing about who holds it.

Usage:
    found = find_leftovers(folders=[Path("log"), Path("checkpoints")], ports=[9092])
    if found: raise PreviousRunStillGoing(describe_leftovers(found))
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from launch.ports import port_is_free

__all__ = ["Leftover", "find_leftovers", "describe_leftovers"]

APP_MODULES = ("kafka_app", "spark_app")
_LISTEN = "0A"  # the TCP state LISTEN in /proc/net/tcp


@dataclass(frozen=True)
class Leftover:
    """One process in the way, and why it is in the way."""

    pid: int
    command: str
    reason: str


def find_leftovers(folders: Sequence[Path], ports: Sequence[int]) -> list[Leftover]:
    """Our apps using one of `folders`, and whoever listens on one of `ports`; not ourselves."""
    found: dict[int, Leftover] = {}
    for port in ports:
        if port_is_free(port):
            continue
        owners = _listeners(port)
        if not owners:
            found.setdefault(-port, Leftover(0, "(another user's process)", f"holds port {port}"))
        for pid in owners:
            found.setdefault(pid, Leftover(pid, _command(pid), f"holds port {port}"))
    wanted = [folder.resolve() for folder in folders]
    for pid in _app_processes():
        folder = _uses_folder(pid, wanted)
        if folder is not None:
            found.setdefault(pid, Leftover(pid, _command(pid), f"uses {folder}"))
    return sorted(found.values(), key=lambda leftover: leftover.pid)


def describe_leftovers(found: Iterable[Leftover]) -> str:
    found = list(found)
    each = "; ".join(f"pid {f.pid} `{_short(f.command)}` {f.reason}" for f in found)
    pids = " ".join(str(f.pid) for f in found if f.pid)
    stop = (
        f"Stop them with `kill {pids}` (`kill -9 {pids}` if they do not stop)"
        if pids
        else "Stop that process"
    )
    return f"a previous run is still going: {each}. {stop}, then start again."


def _short(command: str, limit: int = 100) -> str:
    return command if len(command) <= limit else command[:limit] + "…"


def _proc_pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:  # no /proc (macOS): the demo starts without looking for leftovers
        return []


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "(gone)"
    # Arguments may hold newlines (`python -c "..."`): one line reads better in a message.
    return " ".join(raw.replace(b"\0", b" ").decode(errors="replace").split())


def _app_processes() -> list[int]:
    """Our own apps' processes (`python -m kafka_app|spark_app`), this process's family excluded."""
    mine = {os.getpid(), os.getppid()}
    found = []
    for pid in _proc_pids():
        words = _command(pid).split()
        if pid not in mine and any(f"-m {m}" in " ".join(words[:4]) for m in APP_MODULES):
            found.append(pid)
    return found


def _uses_folder(pid: int, wanted: Sequence[Path]) -> Path | None:
    """The first of `wanted` named by the process's --log-dir / --checkpoint-dir options."""
    words = _command(pid).split()
    try:
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None
    for flag, value in zip(words, words[1:]):
        if flag in ("--log-dir", "--checkpoint-dir"):
            path = (cwd / value).resolve()
            if path in wanted:
                return path
    for flag in ("--log-dir", "--checkpoint-dir"):
        default = (cwd / ("log" if flag == "--log-dir" else "checkpoints")).resolve()
        if flag not in words and default in wanted:
            return default
    return None


def _listeners(port: int) -> list[int]:
    """The pids holding a listening socket on `port` (IPv4 or IPv6)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == _LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return [pid for pid in _proc_pids() if inodes & _socket_inodes(pid)]


def _socket_inodes(pid: int) -> set[str]:
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return set()
    return {link[8:-1] for link in links if link.startswith("socket:[")}
