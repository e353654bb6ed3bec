"""Where a scenario's time goes: Kafka starts, Spark starts up to their first output, stops.

The lesson's own waiting (messages to flow, retention to delete, soaks) is what is left. A run
that is slow for the wrong reasons shows it here: a Kafka start per scenario, a cluster that
takes 40 s to its first batch. benchmarks/run_profile.py reads this from each scenario's JSON
report (`facts["time_spent"]`) and prints it per scenario and in total.

A Spark start is measured from its launch to the first line it wrote to the output log (the
line's own time stamp, spark_app/lines/output_line.py's `written_at`), so no wait of the scenario's
is needed to measure it; a start that wrote nothing before the next one (a crash loop, a start
refused by Spark) counts as a start without output. A user's query writes no output log: its
first output is the first batch file its sink put in place (`batch-N.jsonl`, the rename's time).

Usage:
    spent = TimeSpent()
    with spent.timed("kafka start"):
        side.start_broker()
    spent.launched()                      # the Spark app was just started
    spent.summary(Path("log/streaming-output.log"))  # or, with --query: query_output=Path(…)
    # {"kafka start": {"count": 1, "sec": 6.2}, "spark start": {"count": 2, "sec": 21.0, …}, …}
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from spark_app.lines.output_line import written_at

__all__ = ["TimeSpent", "first_output_after"]


@dataclass
class TimeSpent:
    """Seconds per kind of work, and the moments the Spark app was launched."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    launches: list[datetime] = field(default_factory=list)

    @contextmanager
    def timed(self, kind: str) -> Iterator[None]:
        started = time.monotonic()
        try:
            yield
        finally:
            self.seconds.setdefault(kind, []).append(time.monotonic() - started)

    def launched(self) -> None:
        # The output log's stamps are the app's local wall-clock time; so is this.
        self.launches.append(datetime.now())

    def summary(
        self, output_log: Path, query_output: Path | None = None
    ) -> dict[str, dict[str, float]]:
        """Count and seconds per kind (with the longest), Spark starts read from `output_log`, or
        from the batch files in `query_output` when a user's query ran."""
        kinds = {kind: _summed(values) for kind, values in self.seconds.items()}
        stamps = _batch_file_times(query_output) if query_output else _line_times(output_log)
        starts = first_output_after(self.launches, stamps)
        measured = [s for s in starts if s is not None]
        if measured:
            kinds["spark start"] = _summed(measured)
        if len(measured) < len(starts):
            kinds["spark start without output"] = {"count": len(starts) - len(measured)}
        return kinds


def _line_times(output_log: Path) -> list[datetime]:
    lines = output_log.read_text(errors="replace").splitlines() if output_log.exists() else []
    return [t for t in map(written_at, lines) if t]


def _batch_file_times(folder: Path) -> list[datetime]:
    """When each batch file was put in place, in local time as the launches are. A replayed
    batch's file is put in place again: its time is the replay's, after the restart's launch."""
    if not folder.is_dir():
        return []
    return sorted(datetime.fromtimestamp(p.stat().st_mtime) for p in folder.glob("batch-*.jsonl"))


def first_output_after(launches: list[datetime], stamps: list[datetime]) -> list[float | None]:
    """For each launch, the seconds until the first stamp after it and before the next launch."""
    ends = [*launches[1:], None]
    found: list[float | None] = []
    for launch, next_launch in zip(launches, ends):
        first = next(
            (s for s in stamps if s >= launch and (next_launch is None or s < next_launch)), None
        )
        found.append(None if first is None else (first - launch).total_seconds())
    return found


def _summed(values: list[float]) -> dict[str, float]:
    return {"count": len(values), "sec": round(sum(values), 2), "max_sec": round(max(values), 2)}
