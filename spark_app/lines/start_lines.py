"""The app's line for a new checkpoint, printed once its own checks (Kafka among them) passed
and before Spark starts: a scenario that cuts Kafka after it meets the connector's first
offset look-up, not the app's one quick try (the museum's SPARK-55561).

Its words say whose choice the start is: the seed's (earliest, the app's default) or the one
given with --starting-offsets (a scenario's `latest`, a JSON of offsets), which the line must
not call the seed's.

Usage: `print(new_checkpoint_line("earliest"))`; `NEW_CHECKPOINT_WORDS in output`
"""

from __future__ import annotations

__all__ = ["NEW_CHECKPOINT_WORDS", "SEEDS_STARTING_OFFSETS", "new_checkpoint_line"]

NEW_CHECKPOINT_WORDS = "New checkpoint: starting from startingOffsets="
# Seed 001's "smallest", the app's default (settings.py reads it from here): a new query reads
# everything Kafka still holds.
SEEDS_STARTING_OFFSETS = "earliest"


def new_checkpoint_line(starting_offsets: str) -> str:
    if starting_offsets == SEEDS_STARTING_OFFSETS:
        whose = "the seed's choice, passed explicitly"
    else:
        whose = f"as given with --starting-offsets; the seed's choice is {SEEDS_STARTING_OFFSETS}"
    return (
        f"{NEW_CHECKPOINT_WORDS}{starting_offsets} ({whose}; Spark's Kafka connector defaults "
        f"to latest)"
    )
