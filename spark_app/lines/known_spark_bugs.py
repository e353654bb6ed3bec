"""The lines for failures that are Spark's own bugs, named with their ticket and what to do.

The Spark version matrix found one (24 Nov 2026, state scenarios on 4.0.0, 4.1.1 and 4.2.0):
Spark 4.1.1's Kafka connector fails the first trigger of a restart that replays a pending
batch. Kafka real-time mode support (SPARK-54027) made `KafkaMicroBatchStream.metrics` wrap the
latest offsets in `Some(...)` while they are still null: they are fetched by `latestOffset()`,
which a replayed batch does not call, so progress reporting at the end of that trigger throws
a NullPointerException (SPARK-55271, apache/spark#55236). The batch itself ran and was committed
before the exception, so a second start goes on normally. 4.0.0 (before the change) and 4.2.0
did not fail in the same scenarios; the connector for 4.1 is served only at 4.1.1 here.

The app does not hide it: it fails as Spark does, and its line says why and what to do
(spark_app/failures/known_bugs.py recognises the failure and writes the line here). A
scenario that meets it reads that line (`replay_bug_in`), expects it on the 4.1 line only
(`AFFECTED_LINE`), and starts the app again once, as the line says. Which lines have it is the
museum's table's to say (spark_app/lines/known_bug_table.py, SPARK-55271): this module reads it there.

The museum found a second (SPARK-53560, 26 Nov 2026): Spark 4.0.0's connector refuses, on
every restart, the batch a Trigger.AvailableNow run left planned when partitions were added
to the topic since. Its exception says "The error could be transient - restart your query",
which is the wrong advice there (each restart fails alike), so the app's line names the bug
and the way out the museum checked: one start with the processing-time trigger.

Usage:
    line = replay_bug_line("4.1.1", committed_batch=2, log_file=Path("log/spark.log"))
    replay_bug_in(output)  # ReplayBug(spark_version="4.1.1", committed=True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from spark_app.lines.known_bug_table import PRESENT, bug_named, line_of

__all__ = [
    "replay_bug_line",
    "prefetch_mismatch_line",
    "METRICS_NPE",
    "TICKET",
    "AFFECTED_LINE",
    "ReplayBug",
    "replay_bug_in",
    "PREFETCH_TICKET",
    "PREFETCH_CONDITION",
    "PREFETCH_WORDS",
]

TICKET = "SPARK-55271"
# The Spark line the bug is known on, from the museum's table: anywhere else, meeting it is a
# finding (a regression).
AFFECTED_LINE = next(line for line, status in bug_named(TICKET).lines.items() if status == PRESENT)

# The exception's own words (Java's helpful NullPointerException message).
METRICS_NPE = 'because the return value of "scala.Option.get()" is null'


PREFETCH_TICKET = "SPARK-53560"
# The connector's exception carries no bracketed class: its condition in the connector's
# kafka-error-conditions.json, and the words of its message that the app's line keeps.
PREFETCH_CONDITION = "MISMATCHED_TOPIC_PARTITIONS_BETWEEN_END_OFFSET_AND_PREFETCHED"
PREFETCH_WORDS = "should provide the same topic partitions in pre-fetched offset to end offset"


# The app's line as `replay_bug_line` writes it and `replay_bug_in` reads it.
_APP_LINE = re.compile(r"Spark (\S+)'s Kafka connector failed after replaying a pending batch")
_COMMITTED = "so the next start goes on"


def replay_bug_line(spark_version: str, committed_batch: int | None, log_file: Path) -> str:
    """The app's line for SPARK-55271; `committed_batch`: the replayed batch, when its commit
    was written (then a second start goes on)."""
    committed = (
        f"; the batch was committed (batch {committed_batch}), {_COMMITTED} from the checkpoint."
        if committed_batch is not None
        else "."
    )
    return (
        f"Spark {spark_version}'s Kafka connector failed after replaying a pending batch: a "
        f"NullPointerException in KafkaMicroBatchStream.metrics, a bug of the {AFFECTED_LINE} line "
        f"({TICKET}){committed} Start the app again, or run Spark 4.0 or 4.2, "
        f"which do not have it (details in {log_file})"
    )


@dataclass(frozen=True)
class ReplayBug:
    """The app's line for SPARK-55271, as a scenario reads it from the app's output."""

    spark_version: str
    committed: bool  # the replayed batch was committed: a second start goes on

    @property
    def expected(self) -> bool:
        """Whether the museum's table says the running Spark's line has the bug."""
        return bug_named(TICKET).lines.get(line_of(self.spark_version)) == PRESENT


def replay_bug_in(output: str) -> ReplayBug | None:
    """The bug as the app's own line names it in `output`, or None."""
    found = _APP_LINE.search(output)
    if found is None:
        return None
    return ReplayBug(found.group(1), _COMMITTED in output[found.start() :])


def prefetch_mismatch_line(spark_version: str, log_file: Path) -> str:
    """The app's line for SPARK-53560, with the way out the museum checked."""
    lines = [line for line, status in bug_named(PREFETCH_TICKET).lines.items() if status == PRESENT]
    return (
        f"[{PREFETCH_CONDITION}] Spark {spark_version}'s Kafka connector refused the batch a "
        f"Trigger.AvailableNow run left planned: partitions were added to the topic since, and "
        f"every restart with AvailableNow fails alike ({PREFETCH_TICKET}, a bug of the "
        f"{', '.join(lines)} line). Start once with --trigger processing-time (it replays that "
        f"batch and reads the new partitions from offset 0), stop it, then run AvailableNow "
        f"again; or run a line with the fix (details in {log_file})"
    )
