"""What a user's query costs against the counter, in one run: batch time, restart time, the oracle.

Runs one scenario twice, one run after the other (`python -m scenarios run SCENARIO --fast
--report DIR`): with the counter, then with a gallery query (`--query`). From each run's report
it reads the batches' durations (the app's batch lines), the Spark starts up to their first
output (the report's time_spent) and, for the query, the oracle's own time; it prints them side
by side with the ratios, and the oracle's share of the scenario against the issue's bound: under
10 % of the scenario's time, or under one Spark start, whichever is longer.

Usage:
    uv run python benchmarks/query_costs.py       # endless-retention and window_count
    uv run python benchmarks/query_costs.py --scenario chaos --query queries/dedup.py
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.spark_latency import cpu_probe_sec  # noqa: E402
from spark_app.lines.batch_line import durations_in_output  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _run(scenario: str, report: Path, query: str | None) -> dict:
    argv = [sys.executable, "-m", "scenarios", "run", scenario, "--fast", "--report", str(report)]
    if query:
        argv += ["--query", query]
    subprocess.run(argv, cwd=ROOT, check=False, capture_output=True, text=True)
    return json.loads((report / f"{scenario}.json").read_text())


def _figures(result: dict, report: Path, scenario: str) -> dict[str, float]:
    spent = result["facts"].get("time_spent", {})
    consoles = sorted((report / scenario / "processes").glob("spark-*.out"))
    batches = [
        ms / 1000 for out in consoles for ms in durations_in_output(out.read_text()).values()
    ]
    starts = spent.get("spark start", {})
    return {
        "scenario (s)": result["duration_sec"],
        "batch, median (s)": statistics.median(batches) if batches else float("nan"),
        "Spark start to first output, mean (s)": starts.get("sec", 0.0)
        / max(starts.get("count", 1), 1),
        "Spark starts": starts.get("count", 0),
        "oracle (s)": spent.get("oracle", {}).get("sec", 0.0),
        "verdict": 1.0 if result["verdict"] == "passed" else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="endless-retention")
    parser.add_argument("--query", default="queries/window_count.py")
    args = parser.parse_args(argv)
    probe = cpu_probe_sec()
    with tempfile.TemporaryDirectory(prefix="query-costs-") as work:
        counter_dir, query_dir = Path(work) / "counter", Path(work) / "query"
        counter = _figures(_run(args.scenario, counter_dir, None), counter_dir, args.scenario)
        query = _figures(_run(args.scenario, query_dir, args.query), query_dir, args.scenario)
    print(
        f"{args.scenario} --fast, the counter against {args.query}; CPU probe {probe:.2f} s "
        f"(0.12-0.14 s in the machine's quiet hours)"
    )
    print(f"| figure | counter | {Path(args.query).stem} | ratio |")
    print("|---|---|---|---|")
    for name in counter:
        a, b = counter[name], query[name]
        ratio = f"{b / a:.2f}" if a else "-"
        print(f"| {name} | {a:.2f} | {b:.2f} | {ratio} |")
    oracle, total, start = (
        query["oracle (s)"],
        query["scenario (s)"],
        query["Spark start to first output, mean (s)"],
    )
    bound = max(0.10 * total, start)
    print(
        f"oracle {oracle:.1f} s of {total:.0f} s ({100 * oracle / total:.1f} %); the bound, "
        f"the longer of 10 % ({0.10 * total:.1f} s) and one Spark start ({start:.1f} s): "
        f"{bound:.1f} s: {'met' if oracle <= bound else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
