"""Spark's own account of a run: its event log (`--event-log-dir`), and its executors' processes.

The cluster scenarios show what Spark did when an executor or a worker died, from Spark itself:
the event log (one JSON event per line, what Spark's History Server reads) says which executor
was removed and why, which task attempts failed with it, and where the task ran again. Spark
writes the log as the run goes and flushes it at every stage's end and executor change.

A task of the stateful operator is told apart by its metrics: only it reports state rows
(`number of total state rows`, ...). Its executor holds the state store in memory; another
executor running the task must load the store again from the checkpoint's .delta files.

Usage:
    events = SparkEvents.read(Path("log/events"))
    events.state_tasks()[-1].executor      # e.g. "1": where the count's state lives now
    executor_pids(session=app.pid)         # {"0": 4242, "1": 4250}
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ExecutorChange", "SparkEvents", "TaskRun", "executor_pids"]

_STATE_METRIC = "state rows"


@dataclass(frozen=True)
class TaskRun:
    """One task attempt as the event log's SparkListenerTaskEnd tells it."""

    stage: int
    task_id: int
    attempt: int
    executor: str
    succeeded: bool
    reason: str
    finished_ms: int
    reports_state: bool


@dataclass(frozen=True)
class ExecutorChange:
    executor: str
    added: bool
    at_ms: int
    reason: str = ""


@dataclass(frozen=True)
class SparkEvents:
    tasks: tuple[TaskRun, ...]
    executors: tuple[ExecutorChange, ...]

    @classmethod
    def read(cls, folder: Path) -> SparkEvents:
        # Spark 4 rolls the log: a folder eventlog_v2_<app>/ holding events_<n>_<app> files.
        files = sorted(p for p in folder.rglob("events_*") if p.is_file() and p.suffix != ".crc")
        events = [e for path in files for e in _lines(path)]
        tasks = tuple(_task(e) for e in events if e.get("Event") == "SparkListenerTaskEnd")
        changes = tuple(
            _change(e)
            for e in events
            if e.get("Event") in ("SparkListenerExecutorAdded", "SparkListenerExecutorRemoved")
        )
        return cls(tasks, changes)

    def state_stages(self) -> set[int]:
        return {t.stage for t in self.tasks if t.reports_state}

    def state_tasks(self) -> list[TaskRun]:
        """Every attempt of a stateful task, failed ones included (they report no metrics)."""
        stages = self.state_stages()
        return [t for t in self.tasks if t.stage in stages]

    def removed(self) -> list[ExecutorChange]:
        return [c for c in self.executors if not c.added]

    def added(self) -> list[ExecutorChange]:
        return [c for c in self.executors if c.added]


def _lines(path: Path) -> list[dict]:
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass  # the line Spark is writing right now
    return events


def _task(event: dict) -> TaskRun:
    info, reason = event.get("Task Info", {}), event.get("Task End Reason", {})
    metrics = [a.get("Name", "") for a in info.get("Accumulables", [])]
    why = reason.get("Reason", "")
    if why == "ExecutorLostFailure":
        why = f"ExecutorLostFailure (executor {reason.get('Executor ID')}: {reason.get('Loss Reason', '')})"
    return TaskRun(
        stage=event.get("Stage ID", -1),
        task_id=info.get("Task ID", -1),
        attempt=info.get("Attempt", 0),
        executor=str(info.get("Executor ID", "")),
        succeeded=reason.get("Reason") == "Success",
        reason=why,
        finished_ms=info.get("Finish Time", 0),
        reports_state=any(_STATE_METRIC in name for name in metrics),
    )


def _change(event: dict) -> ExecutorChange:
    added = event["Event"] == "SparkListenerExecutorAdded"
    return ExecutorChange(
        str(event.get("Executor ID")),
        added,
        event.get("Timestamp", 0),
        "" if added else str(event.get("Removed Reason", "")),
    )


def executor_pids(session: int | None = None, group: int | None = None) -> dict[str, int]:
    """Spark executor id -> pid of its JVM (CoarseGrainedExecutorBackend), among the processes
    of one session (the app's: local-cluster runs its executors as the driver's children) or
    one process group (a standalone Worker's). Linux: reads /proc.

    A JVM starting a child (a Python worker) forks first: until the child's exec its cmdline
    reads as the executor's, so a look at that moment finds two. The JVM is the one whose
    parent is not a candidate itself (found on a run that killed the child, not the JVM)."""
    candidates: dict[str, list[tuple[int, int]]] = {}
    for pid in _pids():
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            mine = (session is None or os.getsid(pid) == session) and (
                group is None or os.getpgid(pid) == group
            )
            parent = _parent_pid(pid)
        except OSError:
            continue  # gone meanwhile
        if (
            mine
            and any(w.endswith("CoarseGrainedExecutorBackend") for w in words)
            and "--executor-id" in words
        ):
            candidates.setdefault(words[words.index("--executor-id") + 1], []).append((pid, parent))
    found = {}
    for executor, procs in candidates.items():
        pids = {pid for pid, _ in procs}
        found[executor] = (
            min(pid for pid, parent in procs if parent not in pids)
            if any(parent not in pids for _, parent in procs)
            else min(pids)
        )
    return found


def _pids() -> list[int]:
    return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())


def _parent_pid(pid: int) -> int:
    """PPid from /proc/PID/stat (the field after the command name in parentheses)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2 :].split()[1])
