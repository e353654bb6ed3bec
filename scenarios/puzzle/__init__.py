"""The workshop's capstone: a checkpoint and its job that will not restart correctly.

`python -m scenarios puzzle --seed S` runs the job on a new checkpoint, breaks it with one of
the faults the seed draws (faults.py), and hands over the folder `puzzle/`: the checkpoint, the
job (`job.sh`), its logs, and Kafka with the producer kept in the terminal, as an exercise's.
The attendee diagnoses with `inspect`, the app's line and the cheat-sheet, repairs the
checkpoint or the job, and `puzzle --check` runs the job (check.py) and says whether it
continues exactly once, and what was lost if the repair was a reset (judge.py). The trainer's
`puzzle --answer S` names the fault and its best repair.

Usage: `fault = fault_for(7)`; `seed = seed_for("retention")`
"""

from __future__ import annotations

import random

from scenarios.puzzle.fault import Fault
from scenarios.puzzle.faults import FAULTS

__all__ = ["FAULTS", "fault_for", "seed_for"]


def fault_for(seed: int) -> Fault:
    """The fault seed `seed` draws: the same on every machine. Seeds come in blocks of one per
    fault (0-4, 5-9, …), each block a shuffle of them all, so that a room handed consecutive
    seeds meets every fault, and neighbours cannot tell theirs from the order."""
    block, place = divmod(seed, len(FAULTS))
    order = list(FAULTS)
    random.Random(block).shuffle(order)
    return order[place]


def seed_for(name: str) -> int:
    """The first seed that draws the fault `name` (the tests' and a trainer's way to it)."""
    return next(s for s in range(len(FAULTS)) if fault_for(s).name == name)
