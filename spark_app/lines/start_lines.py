"""The app's line for a new checkpoint, printed once its own checks (Kafka among them) passed
and before Spark starts: a scenario that cuts Kafka after it meets the connector's first
offset look-up, not the app's one quick try (the museum's SPARK-55561).

Usage: `print(new_checkpoint_line("earliest"))`; `NEW_CHECKPOINT_WORDS in output`
"""

from __future__ import annotations

__all__ = ["NEW_CHECKPOINT_WORDS", "new_checkpoint_line"]

NEW_CHECKPOINT_WORDS = "New checkpoint: starting from startingOffsets="


def new_checkpoint_line(starting_offsets: str) -> str:
    return (
        f"{NEW_CHECKPOINT_WORDS}{starting_offsets} (the seed's choice, passed explicitly; "
        f"Spark's Kafka connector defaults to latest)"
    )
