"""The one seeded fault library: which fault comes when, and how long it holds, drawn from a seed.

Every fault a run draws at random is drawn here, from `random.Random(seed)`, so one seed gives
one schedule wherever it runs: the nemesis's faults (kind, time, hold, target), and chaos's kill
moments (`kill_moments`, the three places of a micro-batch a kill -9 aims at). A seed replays
the schedule, not the exact interleaving with Spark's batches: a fault planned at 41.3 s lands
in whichever batch runs then on this machine, at this load.

The kinds, in the order the draw reads them (so `--faults pause,kill` and `--faults kill,pause`
draw the same schedule):

- kill: kill -9 of the app's process group, aimed at a moment of a micro-batch;
- term: SIGTERM, the app stops cleanly and is started again;
- pause: SIGSTOP of the app's process group, SIGCONT after the hold (a long GC pause);
- kafka-cut: the network between the app and Kafka cut for the hold (the TCP proxy);
- broker: a Kafka broker (the leader or a follower) killed with -9, started after the hold;
- store-cut: the network between the app and its checkpoint store cut for the hold;
- disk: the checkpoint's disk filled for the hold, then freed;
- executor: an executor of the app's cluster killed with -9 (Spark starts another).

Usage:
    schedule = draw_schedule(seed=7, minutes=2, kinds=("kill", "pause"), fast=True)
    print("\\n".join(schedule.lines()))
    moments = kill_moments(4, random.Random(1))  # chaos: each moment in turn, shuffled
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from scenarios.errors import ScenarioError

__all__ = [
    "FAULT_KINDS",
    "GAP_SEC",
    "HOLD_SEC",
    "KILL_MOMENTS",
    "Fault",
    "Schedule",
    "draw_schedule",
    "kill_moments",
    "parse_kinds",
]

# What each kind does, in the draw's order.
FAULT_KINDS: dict[str, str] = {
    "kill": "kill -9 of the app's process group, aimed at a moment of a micro-batch",
    "term": "SIGTERM: the app stops cleanly, then is started again",
    "pause": "SIGSTOP of the app's process group, SIGCONT after the hold (a long GC pause)",
    "kafka-cut": "the network between the app and Kafka cut, then restored",
    "broker": "a Kafka broker killed with -9, started again after the hold",
    "store-cut": "the network between the app and its checkpoint store cut, then restored",
    "disk": "the checkpoint's disk filled, then freed",
    "executor": "an executor of the app's cluster killed with -9; Spark starts another",
}

# The three places of a micro-batch a kill -9 aims at (scenarios/engine/faults/kills.py).
KILL_MOMENTS = ("batch boundary", "mid-batch", "mid-write")

# How long each kind holds before it is healed, in seconds (low, high). A kill, a SIGTERM and an
# executor's death are healed by a start (the supervision's, or Spark's), not by a wait. A cut
# or a pause of up to 20 s lies inside the connector's retries (3 x 60 s): ridden out, or a
# restart; a broker down 20 s outlasts its session (9 s), so leadership moves.
HOLD_SEC: dict[str, tuple[float, float]] = {
    "kill": (0.0, 0.0),
    "term": (0.0, 0.0),
    "pause": (3.0, 15.0),
    "kafka-cut": (3.0, 20.0),
    "broker": (5.0, 20.0),
    "store-cut": (3.0, 15.0),
    "disk": (3.0, 15.0),
    "executor": (0.0, 0.0),
}

# Seconds between two faults' planned times (low, high): "every few seconds". With --fast the
# producer sends twice as often, and a Spark start (10 to 20 s here) still fits between two.
GAP_SEC: dict[bool, tuple[float, float]] = {True: (6.0, 15.0), False: (10.0, 30.0)}

# Who a fault hits, when the kind has a choice; drawn with the fault.
_TARGETS: dict[str, tuple[str, ...]] = {
    "kill": KILL_MOMENTS,
    "term": ("the app",),
    "pause": ("the app's process group",),
    "kafka-cut": ("the app's link to Kafka",),
    "broker": ("the leader", "a follower"),
    "store-cut": ("the app's link to the store",),
    "disk": ("the checkpoint's disk",),
    "executor": ("the first executor", "the second executor"),
}


@dataclass(frozen=True)
class Fault:
    """One planned fault: when (seconds after the faults begin), which, for how long, at whom.

    `jitter` seeds the fault's own randomness where it has some (a kill's aim inside the pause
    before the next trigger), so that too replays with the seed."""

    number: int
    at_sec: float
    kind: str
    hold_sec: float
    target: str
    jitter: int

    def line(self) -> str:
        held = f", healed after {self.hold_sec:.1f} s" if self.hold_sec else ""
        return f"#{self.number:<3} at {self.at_sec:6.1f} s  {self.kind:<9}  {self.target}{held}"


@dataclass(frozen=True)
class Schedule:
    """Every fault of a run, in time order, and what drew them."""

    seed: int
    minutes: float
    kinds: tuple[str, ...]
    fast: bool
    faults: tuple[Fault, ...]

    def lines(self) -> list[str]:
        """The schedule as `--dry-run` prints it: a head line, then one line per fault."""
        head = (
            f"seed {self.seed}: {len(self.faults)} fault(s) in {self.minutes:g} min of "
            f"{', '.join(self.kinds)} (the faults begin once the app counts)"
        )
        return [head, *(fault.line() for fault in self.faults)]


def parse_kinds(text: str) -> tuple[str, ...]:
    """`--faults kill,pause`: the kinds named, in the draw's order; one line for an unknown."""
    named = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in named if k not in FAULT_KINDS]
    if unknown or not named:
        raise ScenarioError(
            f"--faults {text}: {', '.join(unknown) or 'none named'}; the kinds are "
            f"{', '.join(FAULT_KINDS)}, e.g. --faults kill,pause"
        )
    return tuple(k for k in FAULT_KINDS if k in named)


def draw_schedule(seed: int, minutes: float, kinds: Sequence[str], fast: bool = False) -> Schedule:
    """The faults of `minutes` minutes, drawn from `seed` over `kinds`: the same arguments give
    the same schedule. Each fault draws, in this order: the gap since the one before, its kind,
    its hold, its target, its jitter."""
    ordered = tuple(k for k in FAULT_KINDS if k in kinds)
    if not ordered:
        raise ScenarioError("no fault kind to draw from: name one with --faults")
    rng = random.Random(seed)
    low, high = GAP_SEC[fast]
    faults: list[Fault] = []
    at = 0.0
    while True:
        at += rng.uniform(low, high)
        if at >= minutes * 60:
            break
        kind = rng.choice(ordered)
        hold_low, hold_high = HOLD_SEC[kind]
        hold = round(rng.uniform(hold_low, hold_high), 1)
        target = rng.choice(_TARGETS[kind])
        faults.append(
            Fault(len(faults) + 1, round(at, 1), kind, hold, target, rng.randrange(2**31))
        )
    return Schedule(seed, minutes, ordered, fast, tuple(faults))


def kill_moments(kills: int, rng: random.Random) -> list[str]:
    """Chaos's kill moments: each of the three in turn, in a seeded random order per round."""
    moments: list[str] = []
    while len(moments) < kills:
        round_ = list(KILL_MOMENTS)
        rng.shuffle(round_)
        moments += round_
    return moments[:kills]
