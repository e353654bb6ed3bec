"""Where a scenario's time goes: Kafka starts, Spark starts up to their first output, stops.

The lesson's own waiting (messages to flow, retention to delete, soaks) is what is left. A run
that is slow for the wrong reasons shows it here: a Kafka start per scenario, a cluster that
takes 40 s to its first batch. benchmarks/run_profile.py reads this from each scenario's JSON
report (`facts["time_spent"]`) and prints it per scenario and in total.

A Spark start is measured from its launch to the first line it wrote to the output log (the
line's own time stamp, spark_app/lines/output_line.py's `written_at`), so no wait of the scenario's
is needed to measure it; a start that wrote nothing before the next one (a crash loop, a start
refused by Spark) counts as a start without output.

Usage:
    spent = TimeSpent()
    with spent.timed("kafka start"):
        side.start_broker()
    spent.launched()                      # the Spark app was just started
    spent.summary(Path("log/streaming-output.log"))
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

    def summary(self, output_log: Path) -> dict[str, dict[str, float]]:
        """Count and seconds per kind (with the longest), Spark starts read from `output_log`."""
        kinds = {kind: _summed(values) for kind, values in self.seconds.items()}
        lines = output_log.read_text(errors="replace").splitlines() if output_log.exists() else []
        starts = first_output_after(self.launches, [t for t in map(written_at, lines) if t])
        measured = [s for s in starts if s is not None]
        if measured:
            kinds["spark start"] = _summed(measured)
        if len(measured) < len(starts):
            kinds["spark start without output"] = {"count": len(starts) - len(measured)}
        return kinds


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
