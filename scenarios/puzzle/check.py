"""`puzzle --check`: run the repaired job for a few batches, stop it, judge what it wrote.

The job runs as job.sh says (scenarios/puzzle/job.py), on the Kafka the puzzle's first terminal
keeps, until it has written a few more messages and committed them, or until it exits by
itself: then it does not restart yet, and its last line says why. Stopped with SIGTERM (a clean
stop between batches), the output log's history is judged (scenarios/puzzle/judge.py).

Usage: `verdict = check_repair(ws, setup, fault, say)`
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from launch.errors import LaunchError
from launch.group import ProcessGroup
from launch.leftovers import describe_leftovers, find_leftovers
from launch.ports import port_open
from launch.waiting import wait_until
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.exercises.errors import NotSetUp, StillRunning
from scenarios.exercises.exercise import Verdict
from scenarios.exercises.history import output_history
from scenarios.exercises.workspace import Setup, Workspace
from scenarios.puzzle.fault import Fault
from scenarios.puzzle.job import APP_MODULE, job_args, missing_fixed
from scenarios.puzzle.judge import judge_repair
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError

__all__ = ["NEW_MESSAGES", "RUN_TIMEOUT_SEC", "check_repair"]

# Messages the repaired job writes, and commits, before it is stopped and judged.
NEW_MESSAGES = 6
RUN_TIMEOUT_SEC = 300.0


@dataclass(frozen=True)
class _Progress:
    messages: int
    committed: int


def _progress(ws: Workspace) -> _Progress:
    try:
        info = read_checkpoint(ws.checkpoints)
        committed = len(info.commit_ids)
    except CheckpointError:
        committed = 0
    return _Progress(output_history(ws).messages, committed)


def check_repair(ws: Workspace, setup: Setup, fault: Fault, say: Callable[[str], None]) -> Verdict:
    """Run the job as job.sh stands, then judge its output; a job that exits is not repaired."""
    args = job_args(ws.app_script.read_text(encoding="utf-8"))
    gone = missing_fixed(args, setup.facts["fixed_args"])
    if gone:
        return Verdict.not_yet(
            f"job.sh no longer runs on the puzzle's Kafka, checkpoint and log: put back "
            f"{'; '.join(gone)} (the check reads the job's output there)"
        )
    if not port_open(int(setup.bootstrap_servers.rpartition(":")[2])):
        raise NotSetUp(
            f"Kafka at {setup.bootstrap_servers} does not answer: the puzzle's first terminal "
            "keeps it; is it still running?"
        )
    # The room's broker and producer run from the folder too (so they "use" its default
    # checkpoints/): only a Spark app there is in the way.
    found = [f for f in find_leftovers([ws.checkpoints], []) if f"-m {APP_MODULE}" in f.command]
    if found:
        raise StillRunning(
            f"the job already runs on {ws.checkpoints}: {describe_leftovers(found)}; stop it "
            "(Ctrl-C), then check"
        )
    before = _progress(ws)
    with ProcessGroup(ws.root / "processes", env={"PYTHONPATH": str(PROJECT_ROOT)}) as group:
        job = group.start("check", [sys.executable, "-m", "spark_app", *args])
        say(f"running job.sh as it stands (pid {job.pid}); its console: {job.output_path}")

        def moved_on() -> _Progress | bool | None:
            if not job.running:
                return True
            now = _progress(ws)
            wrote = now.messages >= before.messages + NEW_MESSAGES
            return now if wrote and now.committed > before.committed else None

        try:
            wait_until(moved_on, timeout=RUN_TIMEOUT_SEC, what="the job to write", poll=0.5)
        except LaunchError:
            return Verdict.not_yet(
                f"the job ran {RUN_TIMEOUT_SEC:.0f} s without writing {NEW_MESSAGES} messages "
                f"and committing them: its console is {job.output_path}"
            )
        if not job.running:
            return Verdict.not_yet(
                f"the job does not restart yet: it exited with code {job.returncode}",
                f"its last line: {job.tail(1).strip()[:600]}",
            )
        job.terminate(timeout=120)
    try:
        query_id = read_checkpoint(ws.checkpoints).query_id
    except CheckpointError:
        query_id = None
    return judge_repair(output_history(ws), fault, setup.facts, query_id)
