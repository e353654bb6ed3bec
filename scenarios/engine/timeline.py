"""What happened when in one scenario, as data: Kafka's offsets, the checkpoint, the app's life.

The stage and its observers record here, while the scenario runs: samples of Kafka's earliest and
latest offsets with the offset the checkpoint has committed, the moments the app was killed,
stopped or crashed, when it was up, the spans of the faults a nemesis applied (bands, from the
fault to its heal), and (checkpoint-growth) the checkpoint folder's files and size. It is data
only: one renderer draws it (scenarios/report/timeline.py, SVG) for the HTML report after the run
and for the live page (`--web`, scenarios/web/) while it goes, and the JSON report keeps its
summary (`to_dict`). The demo records one too, from what its screen reads.

Usage:
    timeline = Timeline()
    timeline.sample(earliest=0, latest=10, committed=8, per_partition=((0, 10),))
    timeline.event("kill -9", kind="kill")
    timeline.folder({"offsets": 101, "commits": 101, "state": 262}, total_bytes=1_200_000)
    band = timeline.band_start("#3 pause", "pause"); ...; timeline.band_end(band)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Band", "Event", "EventKind", "FolderPoint", "Sample", "Timeline"]

EventKind = Literal["start", "kill", "stop", "crash", "exit", "reset", "note"]


@dataclass(frozen=True)
class Sample:
    """Kafka's offsets summed over the partitions, the checkpoint's committed offset (summed),
    and each partition's (earliest, latest) when the sampler knew them."""

    at: float
    earliest: int | None
    latest: int | None
    committed: int | None
    per_partition: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class FolderPoint:
    """The checkpoint folder at one moment: files per sub-folder, and its size in bytes."""

    at: float
    files: dict[str, int]
    total_bytes: int


@dataclass(frozen=True)
class Event:
    at: float
    label: str
    kind: EventKind


@dataclass(frozen=True)
class Band:
    """A span of time a fault held, from its application to its heal (None: still holding);
    `kind` is the fault's kind (scenarios/engine/faults/schedule.py), which picks its colour."""

    start: float
    end: float | None
    label: str
    kind: str


@dataclass
class Timeline:
    """A thread-safe record of samples, events and the app's up periods, in seconds since start."""

    started: float = field(default_factory=time.monotonic)
    samples: list[Sample] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    up_periods: list[tuple[float, float | None]] = field(default_factory=list)
    folder_points: list[FolderPoint] = field(default_factory=list)
    fault_bands: list[Band] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> float:
        return time.monotonic() - self.started

    def sample(
        self,
        earliest: int | None,
        latest: int | None,
        committed: int | None,
        per_partition: tuple[tuple[int, int], ...] = (),
    ) -> None:
        with self._lock:
            self.samples.append(Sample(self.now(), earliest, latest, committed, per_partition))

    def last_sample(self) -> Sample | None:
        """The newest sample, for a page that shows where things stand now."""
        with self._lock:
            return self.samples[-1] if self.samples else None

    def folder(self, files: dict[str, int], total_bytes: int) -> None:
        with self._lock:
            self.folder_points.append(FolderPoint(self.now(), dict(files), total_bytes))

    def event(self, label: str, kind: EventKind = "note", at: float | None = None) -> None:
        """An event now, or at `at` (seconds on this clock) when it is found out later."""
        with self._lock:
            self.events.append(Event(self.now() if at is None else at, label, kind))

    def band_start(self, label: str, kind: str) -> int:
        """A fault begins now; the number to end its band with."""
        with self._lock:
            self.fault_bands.append(Band(self.now(), None, label, kind))
            return len(self.fault_bands) - 1

    def band_end(self, band: int) -> None:
        """The fault `band` (band_start's number) is healed now (idempotent)."""
        with self._lock:
            open_band = self.fault_bands[band]
            if open_band.end is None:
                self.fault_bands[band] = Band(
                    open_band.start, self.now(), open_band.label, open_band.kind
                )

    def bands(self) -> list[Band]:
        """The fault bands to draw, a band still open ending now."""
        with self._lock:
            now = self.now()
            return [
                b if b.end is not None else Band(b.start, now, b.label, b.kind)
                for b in self.fault_bands
            ]

    def app_up(self) -> None:
        with self._lock:
            self.up_periods.append((self.now(), None))

    def app_down(self) -> None:
        with self._lock:
            if self.up_periods and self.up_periods[-1][1] is None:
                self.up_periods[-1] = (self.up_periods[-1][0], self.now())

    def retention_deletions(self) -> list[tuple[float, int, int]]:
        """(time, earliest before, earliest after) for each time the earliest offset moved up."""
        with self._lock:
            known = [s for s in self.samples if s.earliest is not None]
        return [
            (b.at, a.earliest, b.earliest)
            for a, b in zip(known, known[1:])
            if b.earliest > a.earliest
        ]  # type: ignore[operator]

    def to_dict(self) -> dict[str, object]:
        with self._lock:
            return {
                "events": [vars(e) for e in self.events],
                "up_periods": [list(p) for p in self.up_periods],
                "samples": len(self.samples),
                **(
                    {"fault_bands": [vars(b) for b in self.fault_bands]} if self.fault_bands else {}
                ),
            }

    def snapshot(
        self,
    ) -> tuple[list[Sample], list[Event], list[tuple[float, float]], list[FolderPoint]]:
        """A consistent copy to draw: samples, events in time order, up periods (one still open
        ends now) and folder points."""
        with self._lock:
            periods = [(a, b if b is not None else self.now()) for a, b in self.up_periods]
            return (
                list(self.samples),
                sorted(self.events, key=lambda e: e.at),
                periods,
                list(self.folder_points),
            )
