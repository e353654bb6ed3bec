"""A nemesis run's history, as JSON lines: every fault with its time, kind and target, how it was
healed, every fault skipped and why, and every start and exit of the app.

The nemesis (scenarios/run/nemesis.py) appends one line per event as it happens, flushed at
once, so a run stopped half-way leaves the history up to its stop; the checker reads it back to
name the fault after which the output went wrong, the timeline draws its faults as bands. This
module owns the line: nobody else parses it by hand.

Each line: `t` (seconds on the run's timeline clock), `wall` (Unix time, to hold against the
producer's record timestamps), `event` (one of EVENTS), and what the event has: `number` (the
fault's number in the schedule), `kind`, `target`, `detail` (how it was healed, why it was
skipped, the app's exit code and last line), `pid` (an app start's).

Usage:
    line = format_entry(HistoryEntry(12.5, 1764410000.1, "fault", number=3, kind="pause"))
    spans = fault_spans(read_history(run_dir / HISTORY_FILE))
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = [
    "EVENTS",
    "HISTORY_FILE",
    "FaultSpan",
    "HistoryEntry",
    "fault_spans",
    "format_entry",
    "parse_entry",
    "read_history",
    "recoveries",
]

HISTORY_FILE = "nemesis-history.jsonl"

# run: the run's seed and schedule (detail: the replay's options); fault: applied; heal: healed;
# skip: a fault (or a kind, number 0) not applied, and why; start, exit: the app's life.
EVENTS = ("run", "fault", "heal", "skip", "start", "exit")


@dataclass(frozen=True)
class HistoryEntry:
    """One event of the run."""

    t: float
    wall: float
    event: str
    number: int = 0
    kind: str = ""
    target: str = ""
    detail: str = ""
    pid: int | None = None


@dataclass(frozen=True)
class FaultSpan:
    """One applied fault, from its application to its heal (None: never healed, the run ended
    first), on both clocks."""

    number: int
    kind: str
    target: str
    start: float
    end: float | None
    start_wall: float
    end_wall: float | None
    healed: str = ""

    def label(self) -> str:
        return f"#{self.number} {self.kind}"

    def short(self) -> str:
        """`fault #3 pause (41.2 s to 52.0 s)`."""
        end = f"{self.end:.1f} s" if self.end is not None else "the end"
        if self.end is not None and self.end - self.start < 0.5:
            return f"fault #{self.number} {self.kind} at {self.start:.1f} s"
        return f"fault #{self.number} {self.kind} ({self.start:.1f} s to {end})"

    def words(self) -> str:
        """`fault #3 pause (the app's process group) at 41.2 s, healed at 52.0 s: SIGCONT`."""
        end = f"healed at {self.end:.1f} s: {self.healed}" if self.end is not None else "not healed"
        return f"fault #{self.number} {self.kind} ({self.target}) at {self.start:.1f} s, {end}"


def format_entry(entry: HistoryEntry) -> str:
    """The entry as one JSON line (no newline); empty fields are left out."""
    data = {k: v for k, v in asdict(entry).items() if v not in ("", None) or k == "event"}
    if not data.get("number"):
        data.pop("number", None)
    return json.dumps(data, separators=(",", ":"))


def parse_entry(line: str) -> HistoryEntry | None:
    """A line read back; None for anything that is not a whole entry (a torn last line)."""
    try:
        data = json.loads(line)
        event = str(data["event"])
        if event not in EVENTS:
            return None
        pid = data.get("pid")
        return HistoryEntry(
            float(data["t"]),
            float(data["wall"]),
            event,
            int(data.get("number", 0)),
            str(data.get("kind", "")),
            str(data.get("target", "")),
            str(data.get("detail", "")),
            None if pid is None else int(pid),
        )
    except (ValueError, KeyError, TypeError):
        return None


def read_history(path: Path) -> list[HistoryEntry]:
    """Every whole entry in the file, in order; none when there is no file."""
    if not path.exists():
        return []
    entries = (parse_entry(line) for line in path.read_text(encoding="utf-8").splitlines())
    return [e for e in entries if e is not None]


def fault_spans(entries: Iterable[HistoryEntry]) -> list[FaultSpan]:
    """Each applied fault with its heal, by number, in the order applied."""
    spans: dict[int, FaultSpan] = {}
    for entry in entries:
        if entry.event == "fault":
            spans[entry.number] = FaultSpan(
                entry.number, entry.kind, entry.target, entry.t, None, entry.wall, None
            )
        elif entry.event == "heal" and entry.number in spans:
            span = spans[entry.number]
            spans[entry.number] = FaultSpan(
                span.number,
                span.kind,
                span.target,
                span.start,
                entry.t,
                span.start_wall,
                entry.wall,
                entry.detail,
            )
    return list(spans.values())


def recoveries(
    spans: Sequence[FaultSpan], samples: Sequence[tuple[float, int | None]]
) -> dict[str, list[float | None]]:
    """Per fault kind, the seconds from each heal to the first sample whose committed offset
    is past the one at the heal: how long the app took to count again. None when the next fault
    (or the run's end) came first: that recovery was not seen on its own. `samples` are (time,
    committed offset) on the history's `t` clock."""
    found: dict[str, list[float | None]] = {}
    starts = sorted(s.start for s in spans)
    for span in spans:
        if span.end is None:
            continue
        end = span.end
        next_fault = next((at for at in starts if at > end), float("inf"))
        before = [c for at, c in samples if at <= end and c is not None]
        at_heal = max(before) if before else -1
        counted = next(
            (at for at, c in samples if end < at <= next_fault and c is not None and c > at_heal),
            None,
        )
        found.setdefault(span.kind, []).append(None if counted is None else round(counted - end, 1))
    return found
