"""Where `run all --fast`'s time goes, per scenario: Kafka starts, Spark starts, stops, the rest.

Reads a run's report folder (each `<scenario>.json` holds `facts["time_spent"]`, measured by
scenarios/engine/stage/time_spent.py) and prints one row per scenario and a total: the
scenario's duration; Kafka's starts (count and seconds); the Spark app's starts up to its first
output line (count, seconds and the longest); its clean stops; and what is left, the lesson's
own waiting and steps. Below the table, every scenario past LONG_RUN_SEC (90 s) with what its
`Scenario.takes` says of its time, or that it says nothing. With `--run`, it first runs the
named scenarios (`python -m scenarios run … --fast --report DIR`) and prints a CPU probe before
and after, so a slow machine can be told from a slow run.

Usage:
    uv run python benchmarks/run_profile.py reports/profile --run all     # run, then profile
    uv run python benchmarks/run_profile.py reports/profile               # profile a finished run
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.spark_latency import cpu_probe_sec  # noqa: E402
from scenarios.engine.scenario import LONG_RUN_SEC  # noqa: E402
from scenarios.registry import all_scenarios  # noqa: E402

__all__ = ["Row", "read_rows", "table_lines", "long_run_lines", "main"]


@dataclass(frozen=True)
class Row:
    """One scenario's seconds, split by what they were spent on."""

    scenario: str
    total: float
    kafka_starts: int = 0
    kafka_sec: float = 0.0
    spark_starts: int = 0
    spark_sec: float = 0.0
    spark_max_sec: float = 0.0
    no_output_starts: int = 0
    stop_sec: float = 0.0

    @property
    def rest(self) -> float:
        return max(0.0, self.total - self.kafka_sec - self.spark_sec - self.stop_sec)


def row_of(report: dict) -> Row:
    spent = report.get("facts", {}).get("time_spent", {})
    kafka, spark = spent.get("kafka start", {}), spent.get("spark start", {})
    return Row(
        report["name"],
        float(report.get("duration_sec") or 0.0),
        kafka_starts=int(kafka.get("count", 0)),
        kafka_sec=float(kafka.get("sec", 0.0)),
        spark_starts=int(spark.get("count", 0)),
        spark_sec=float(spark.get("sec", 0.0)),
        spark_max_sec=float(spark.get("max_sec", 0.0)),
        no_output_starts=int(spent.get("spark start without output", {}).get("count", 0)),
        stop_sec=float(spent.get("spark stop", {}).get("sec", 0.0)),
    )


def read_rows(folder: Path) -> list[Row]:
    """Every scenario report in `folder`, in `run all`'s order."""
    order = {s.name: i for i, s in enumerate(all_scenarios())}
    rows = []
    for path in folder.glob("*.json"):
        report = json.loads(path.read_text())
        if isinstance(report, dict) and "name" in report and "duration_sec" in report:
            rows.append(row_of(report))
    return sorted(rows, key=lambda r: (order.get(r.scenario, len(order)), r.scenario))


def table_lines(rows: list[Row]) -> list[str]:
    head = (
        f"{'scenario':24} {'total s':>8} {'kafka n/s':>11} {'spark n/s (max)':>20} "
        f"{'stops s':>8} {'rest s':>8}"
    )
    lines = [head]
    for r in [*rows, _total(rows)]:
        spark = f"{r.spark_starts}/{r.spark_sec:.0f} ({r.spark_max_sec:.0f})"
        if r.no_output_starts:
            spark += f" +{r.no_output_starts}"
        lines.append(
            f"{r.scenario:24} {r.total:8.0f} {r.kafka_starts:>4}/{r.kafka_sec:<6.0f} "
            f"{spark:>20} {r.stop_sec:8.0f} {r.rest:8.0f}"
        )
    total = _total(rows)
    if total.total:
        lines.append(
            f"shares: Kafka starts {total.kafka_sec / total.total:.0%}, Spark starts "
            f"{total.spark_sec / total.total:.0%}, stops {total.stop_sec / total.total:.0%},"
            f" the rest {total.rest / total.total:.0%} (+N: starts without output)"
        )
    return lines


def long_run_lines(rows: list[Row]) -> list[str]:
    """Every scenario past LONG_RUN_SEC, with what its `takes` says (a trainer plans with it),
    or that it says nothing: then its `takes`, or its waits, need a look."""
    takes = {s.name: s.takes for s in all_scenarios()}
    lines = []
    for r in rows:
        if r.total > LONG_RUN_SEC:
            said = takes.get(r.scenario, "")
            lines.append(
                f"over {LONG_RUN_SEC} s: {r.scenario} {r.total:.0f} s, "
                + (f"says: {said}" if said else "SAYS NOTHING (Scenario.takes)")
            )
    return lines


def _total(rows: list[Row]) -> Row:
    return Row(
        "TOTAL",
        sum(r.total for r in rows),
        kafka_starts=sum(r.kafka_starts for r in rows),
        kafka_sec=sum(r.kafka_sec for r in rows),
        spark_starts=sum(r.spark_starts for r in rows),
        spark_sec=sum(r.spark_sec for r in rows),
        spark_max_sec=max((r.spark_max_sec for r in rows), default=0.0),
        no_output_starts=sum(r.no_output_starts for r in rows),
        stop_sec=sum(r.stop_sec for r in rows),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the run's report folder")
    parser.add_argument(
        "--run",
        nargs="+",
        metavar="NAME",
        help="first run these scenarios (or `all`) with --fast into REPORT",
    )
    parser.add_argument("--offline", action="store_true", help="with --run: the offline stack")
    args = parser.parse_args(argv)
    if args.run:
        print(f"cpu_probe_sec before: {cpu_probe_sec():.2f}", flush=True)
        command = [
            sys.executable,
            "-m",
            "scenarios",
            "run",
            *args.run,
            "--fast",
            "--report",
            str(args.report),
            *(["--offline"] if args.offline else []),
        ]
        subprocess.run(command, check=False)
        print(f"cpu_probe_sec after: {cpu_probe_sec():.2f}")
    rows = read_rows(args.report)
    if not rows:
        print(f"no scenario report in {args.report}: give a run's --report folder", file=sys.stderr)
        return 2
    print("\n".join([*table_lines(rows), *long_run_lines(rows)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
