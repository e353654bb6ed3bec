"""The workshop's capstone: a checkpoint and its job that will not restart correctly.

`python -m scenarios puzzle --seed S` runs the job on a new checkpoint, breaks it with one of
the faults the seed draws (faults.py), and hands over the folder `puzzle/`: the checkpoint, the
job (`job.sh`), its logs, and Kafka with the producer kept in the terminal, as an exercise's.
The attendee diagnoses with `inspect`, the app's line and the cheat-sheet, repairs the
checkpoint or the job, and `puzzle --check` runs the job (check.py) and says whether it
continues exactly once, and what was lost if the repair was a reset (judge.py). The trainer's
`puzzle --answer S` names the fault and its best repair.

Usage: `fault = fault_for(7)`
"""

from __future__ import annotations

import random

from scenarios.puzzle.fault import Fault
from scenarios.puzzle.faults import FAULTS

__all__ = ["FAULTS", "fault_for"]


def fault_for(seed: int) -> Fault:
    """The fault seed `seed` draws: the same on every machine, a different one per seed."""
    return FAULTS[random.Random(seed).randrange(len(FAULTS))]
