"""How long the count stops when a driver, an executor or a worker dies, on this machine, one run.

Runs the scenarios executor-loss (which also kills and at once restarts the driver) and
worker-loss as a user does, and reads their reports: each recovery is timed from the kill to
the next new value in the output log.

    uv run python benchmarks/recovery_time.py [--fast] [--report DIR]

Prints one line per kind of failure and writes nothing outside DIR (default: a temporary folder,
removed at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.work_folder import work_folder  # noqa: E402

# (what died, scenario, fact in its report, what restarts)
MEASURES = (
    (
        "driver (kill -9, restarted at once)",
        "executor-loss",
        "driver_recovery_sec",
        "a new application: driver JVM, executors, Python workers; state loaded from the checkpoint",
    ),
    (
        "one executor",
        "executor-loss",
        "executor_recovery_sec",
        "one task, on the other executor, which loads the state from the checkpoint",
    ),
    (
        "a worker with its executor",
        "worker-loss",
        "worker_recovery_sec",
        "the same, after the Master learns the worker is gone",
    ),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="the scenarios' --fast timings")
    parser.add_argument("--report", type=Path, help="keep the scenarios' reports here")
    args = parser.parse_args(argv)
    with work_folder(args.report, "recovery-time-") as report:
        command = [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            "executor-loss",
            "worker-loss",
            "--report",
            str(report),
            *(["--fast"] if args.fast else []),
        ]
        print(f"running {' '.join(command[1:])} (a few minutes) ...", flush=True)
        env = os.environ | {"PYTHONPATH": str(_REPO)}
        done = subprocess.run(command, cwd=_REPO, env=env, stdout=subprocess.DEVNULL)
        facts = {
            name: json.loads((report / f"{name}.json").read_text())["facts"]
            for name in ("executor-loss", "worker-loss")
            if (report / f"{name}.json").is_file()
        }
        load = os.getloadavg()[0]
        print(f"\nrecovery, from the kill to the next output line (load average {load:.1f}):")
        for what, scenario, fact, restarts in MEASURES:
            seconds = facts.get(scenario, {}).get(fact)
            shown = f"{seconds:6.1f} s" if seconds is not None else "  (none)"
            print(f"  {what:38} {shown}   restarts: {restarts}")
        if done.returncode != 0:
            kept = f"reports in {report}" if args.report else "--report DIR keeps their reports"
            print(f"the scenarios did not all pass (exit {done.returncode}); {kept}")
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
