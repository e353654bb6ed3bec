"""What a nemesis run reaches on this machine: faults per minute, and per fault kind the time from
a healed fault to the app counting again.

Runs `python -m scenarios nemesis --minutes N --seed S --fast --report DIR` as a user does (or
reads a finished run's DIR with `--from`), then reads its report (`nemesis.json`'s fact
`nemesis`): the faults the schedule planned and those applied in the minutes, the app's
restarts, and for each applied fault the seconds from its heal to the first commit past the
offset committed at the heal ("never": the next fault, or the end, came first). The load average
is printed beside the figures: a Spark start takes 10 s on a quiet machine and a minute on a
busy one, and the figures move with it.

    uv run python benchmarks/nemesis_overhead.py --minutes 2 --seed 30 [--report DIR]
    uv run python benchmarks/nemesis_overhead.py --from reports/nemesis

Writes nothing outside DIR (default: a temporary folder, removed at the end).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

_REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(_REPO))  # run as a script: the project's packages are beside this folder

from benchmarks.work_folder import work_folder  # noqa: E402

__all__ = ["main", "table_lines"]


def table_lines(facts: dict[str, Any], load: float) -> list[str]:
    """The figures of one run (its `nemesis` fact) as lines to print."""
    minutes = facts["minutes"]
    lines = [
        f"seed {facts['seed']}, {minutes:g} min of {', '.join(facts['kinds'])} "
        f"(load average {load:.1f})",
        f"faults planned {facts['faults_planned']} ({facts['faults_planned'] / minutes:.1f}/min), "
        f"applied {facts['faults_applied']} ({facts['faults_per_minute']:.1f}/min), "
        f"app restarts {facts['restarts']}",
        f"{'kind':10} {'applied':>7} {'counting again after the heal (s): median':>42} "
        f"{'max':>6} {'never':>6}   (never: the next fault came first)",
    ]
    applied = facts.get("applied_by_kind", {})
    for kind, seconds in sorted(facts["recovery_sec"].items()):
        known = [s for s in seconds if s is not None]
        median = f"{statistics.median(known):.1f}" if known else "-"
        longest = f"{max(known):.1f}" if known else "-"
        never = len(seconds) - len(known)
        lines.append(
            f"{kind:10} {applied.get(kind, len(seconds)):7} {median:>42} {longest:>6} {never:>6}"
        )
    verdict = facts["verdict"]
    lines.append("checker: " + ("OK" if verdict["ok"] else f"NOT OK {verdict}"))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", default="2", help="minutes of faults (default 2)")
    parser.add_argument("--seed", default="30", help="the schedule's seed (default 30, CI's)")
    parser.add_argument("--faults", help="the kinds, as for the nemesis (default: all it can)")
    parser.add_argument("--report", type=Path, help="keep the run's report here")
    parser.add_argument("--from", dest="done", type=Path, help="read a finished run's --report DIR")
    args = parser.parse_args(argv)
    if args.done is not None:
        facts = json.loads((args.done / "nemesis.json").read_text())["facts"]["nemesis"]
        print("\n".join(table_lines(facts, os.getloadavg()[0])))
        return 0
    with work_folder(args.report, "nemesis-overhead-") as report:
        command = [sys.executable, "-m", "scenarios", "nemesis", "--minutes", args.minutes]
        command += ["--seed", args.seed, "--fast", "--report", str(report)]
        command += ["--faults", args.faults] if args.faults else []
        print(f"running {' '.join(command[1:])} (a few minutes) ...", flush=True)
        load_before = os.getloadavg()[0]
        done = subprocess.run(command, cwd=_REPO, stdout=subprocess.DEVNULL)
        load = (load_before + os.getloadavg()[0]) / 2
        path = report / "nemesis.json"
        if not path.is_file():
            print(f"the nemesis wrote no report (exit {done.returncode})")
            return done.returncode or 1
        facts = json.loads(path.read_text())["facts"].get("nemesis")
        if facts is None:
            print(f"the run ended before its checker (exit {done.returncode})")
            return done.returncode or 1
        print("\n".join(table_lines(facts, load)))
        return done.returncode


if __name__ == "__main__":
    sys.exit(main())
