"""The driver JVM's garbage-collection log, as `--gc-log FILE` asks for it: the JVM's options,
and the live heap read back from the log's lines.

A leak is memory that stays reachable, so it shows in the heap that survives a full collection,
not in the process's resident size: the JVM grows its heap when collections cost it time (on a
busy machine) and keeps the pages, so RSS climbed by 480 MiB in a minute on CI while the live
heap stayed at 70 MiB. With these options G1 runs a full collection after every
PERIODIC_FULL_GC_SEC seconds without one (a near-idle driver, as a slow checkpoint makes it),
and each such line gives the live heap:

    [40.180s][info][gc] GC(19) Pause Full (G1 Periodic Collection) 166M->71M(244M) 110.299ms

A full collection of this driver's 70 MiB took 30 to 130 ms on two cores: a few percent of one
core, beside batches that wait seconds on their checkpoint writes.

The line is the JVM's (unified logging, JDK 9 and later); the round trip runs a real JVM
(tests/spark_app/test_gc_log.py).

Usage:
    options = java_options(Path("log/gc.log"))      # added to the driver's extraJavaOptions
    heaps = live_heaps(Path("log/gc.log").read_text())  # [LiveHeap(at_sec=40.18, mib=71), ...]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FILE_NAME", "PERIODIC_FULL_GC_SEC", "LiveHeap", "java_options", "live_heaps"]

# What a scenario calls it, in its log folder beside spark.log; the app writes any name given.
FILE_NAME = "gc.log"

# G1 checks this often whether a collection has run since; at 5 s, a driver collecting
# young garbage every 3 to 5 s got two full collections a minute, too few for a trend.
PERIODIC_FULL_GC_SEC = 2

# "[40.180s][info][gc] GC(19) Pause Full (G1 Periodic Collection) 166M->71M(244M) 110.299ms"
_PERIODIC_FULL = re.compile(
    r"^\[(?P<at>\d+(?:\.\d+)?)s\].*Pause Full \(G1 Periodic Collection\)"
    r" \d+M->(?P<after>\d+)M\(\d+M\)"
)


@dataclass(frozen=True)
class LiveHeap:
    """The heap left after one periodic full collection: what is still reachable."""

    at_sec: float  # seconds since the JVM started
    mib: int


def java_options(log_file: Path, every_sec: int = PERIODIC_FULL_GC_SEC) -> list[str]:
    """The JVM options that log every collection to `log_file` and run a full collection after
    `every_sec` seconds without any (G1's periodic collection, made a full one)."""
    # G1 named: on a machine with one core or under 1.8 GB the JVM picks the serial collector,
    # which has no periodic collection.
    return [
        f"-Xlog:gc:file={log_file.resolve()}",
        "-XX:+UseG1GC",
        f"-XX:G1PeriodicGCInterval={every_sec * 1000}",
        "-XX:-G1PeriodicGCInvokesConcurrent",
    ]


def live_heaps(log_text: str) -> list[LiveHeap]:
    """Every periodic full collection's live heap in a log written with java_options, in order."""
    found = (_PERIODIC_FULL.match(line) for line in log_text.splitlines())
    return [LiveHeap(float(m["at"]), int(m["after"])) for m in found if m]
