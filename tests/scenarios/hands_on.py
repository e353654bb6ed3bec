"""What the exercises' and the puzzle's end-to-end tests type in terminal 2: the job run with
options until it has written more, `spark_app` commands on the folder, and a copy of the folder
as the setup left it, to start a second attempt from the same situation.

Usage:
    restore = snapshot(ws, tmp_path / "as-set-up")
    run_job(ws, setup.app_args, "--on-negative-key", "ignore")
    restore()
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from launch.group import ProcessGroup
from launch.waiting import wait_until
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.exercises.history import output_history
from scenarios.exercises.workspace import Workspace

__all__ = ["run_job", "snapshot", "spark_app"]

JOB_TIMEOUT_SEC = 300.0


def spark_app(*args: str) -> str:
    """`python -m spark_app ARGS` as the attendee types it; its stdout."""
    return subprocess.run(
        [sys.executable, "-m", "spark_app", *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
    ).stdout


def run_job(
    ws: Workspace,
    app_args: Sequence[str],
    *extra: str,
    new_messages: int = 6,
    until: Callable[[], bool] | None = None,
    kill: bool = False,
) -> int | None:
    """Run the job with `extra` after its own options until it has written `new_messages` more
    (or `until` holds, or it exits), then stop it (Ctrl-C's clean stop, or kill -9); its exit
    code when it exited by itself."""
    before = output_history(ws).messages
    done = until or (lambda: output_history(ws).messages >= before + new_messages)
    env = {"PYTHONPATH": str(PROJECT_ROOT)}
    with ProcessGroup(ws.root / "processes", env=env) as group:
        job = group.start("attempt", [sys.executable, "-m", "spark_app", *app_args, *extra])
        wait_until(
            lambda: (not job.running) or done() or None,
            timeout=JOB_TIMEOUT_SEC,
            what="the job to write",
            poll=0.5,
        )
        if not job.running:
            return job.returncode
        if kill:
            job.kill()
        else:
            job.terminate(timeout=120)
    return None


def snapshot(ws: Workspace, to: Path) -> Callable[[], None]:
    """Copy the folder's checkpoint, logs, kept setup and job aside; the function returned puts
    them back (Kafka, running in the room, keeps its data)."""
    kept = [p for p in (ws.checkpoints, ws.log, ws.kept, ws.app_script) if p.exists()]
    to.mkdir(parents=True)
    for path in kept:
        if path.is_dir():
            shutil.copytree(path, to / path.name)
        else:
            shutil.copy2(path, to / path.name)

    def restore() -> None:
        for path in kept:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
                shutil.copytree(to / path.name, path)
            else:
                shutil.copy2(to / path.name, path)

    return restore
