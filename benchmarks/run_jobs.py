"""`run -j N` against `-j 1`: the same scenarios run one after another, then N at a time, in
one go, with a CPU probe before and after so a busy machine can be told from a slow run.

Prints the wall-clock of each way, the scenarios' own durations (from their reports), and the
ratio -j 1 / -j N: above 1 means -j N is faster here. Two cores are the floor this must hold on
(issue 35: never slower than -j 1).

Usage:
    uv run python benchmarks/run_jobs.py checkpoint-reset short-retention --jobs 2
    uv run python benchmarks/run_jobs.py all --jobs 2 --offline      # the whole catalog, twice
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.spark_latency import cpu_probe_sec  # noqa: E402

__all__ = ["main"]


def _run(names: list[str], jobs: int, offline: bool, report: Path) -> tuple[float, float, int]:
    """Wall-clock seconds, the scenarios' own seconds summed, and how many passed."""
    argv = [
        sys.executable,
        "-m",
        "scenarios",
        "run",
        *names,
        "--fast",
        "-j",
        str(jobs),
        "--report",
        str(report),
        *(["--offline"] if offline else []),
    ]
    started = time.monotonic()
    subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
    wall = time.monotonic() - started
    # Each scenario's `<name>.json`, read as run_profile.py reads them (a matrix's own
    # matrix.json has no verdict).
    reports = [json.loads(path.read_text(encoding="utf-8")) for path in report.glob("*.json")]
    results = [r for r in reports if isinstance(r, dict) and "verdict" in r]
    own = sum(float(r.get("duration_sec") or 0.0) for r in results)
    return wall, own, sum(r["verdict"] == "passed" for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="benchmarks/run_jobs.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("names", nargs="+", help="scenario names, or all")
    parser.add_argument("--jobs", type=int, default=2, help="N of -j N (default 2)")
    parser.add_argument("--offline", action="store_true", help="on the stand-ins (embedded/python)")
    args = parser.parse_args(argv)
    print(f"CPU probe before: {cpu_probe_sec():.2f} s")
    with tempfile.TemporaryDirectory(prefix="run-jobs-") as folder:
        one = _run(args.names, 1, args.offline, Path(folder) / "one")
        many = _run(args.names, args.jobs, args.offline, Path(folder) / "many")
    print(f"CPU probe after: {cpu_probe_sec():.2f} s")
    print("| way | wall-clock | scenarios' own seconds | passed |")
    print("|---|---|---|---|")
    for label, (wall, own, passed) in (("-j 1", one), (f"-j {args.jobs}", many)):
        print(f"| {label} | {wall:.0f} s | {own:.0f} s | {passed} |")
    print(
        f"ratio -j 1 / -j {args.jobs}: {one[0] / many[0]:.2f} (above 1: -j {args.jobs} is faster)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
