"""SPARK-53069: transformWithState's state rows counted across a restart, on RocksDB with
changelog checkpointing.

RocksDB holds every state variable of a transformWithState operator as a virtual column family
of one store and counts the keys of each for the query progress (`numRowsTotal` of the state
operator). With changelog checkpointing a restart loads the newest snapshot and replays the
changelogs after it; before apache/spark#51790 the replay counted each key under the default
column family instead of its own, so the counts a restarted query reported were off. The fix
derives the family from the key's prefix as the replay puts, merges and removes it.

queries/museum/three_state_kinds.py keeps a value, a list and a map state (Spark's test uses the
three) and touches the same rows every batch, so the state holds as many rows after each batch;
each batch also registers a timer an hour ahead, an internal key numRowsTotal does not count.
The app runs it until two batches are committed, stops cleanly and starts again until it
commits a batch. The app logs each batch's state rows to spark.log (`batch N state rows: …`,
spark_app/lines/state_rows.py); the exhibit holds the restart's first batch's numRowsTotal to
the last one before the stop.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53069 --fast`
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import Restart, exhibit_step, restart_after
from scenarios.engine.stage import Stage
from spark_app.lines.known_bug_table import RAN_ON, STATE_ROWS_KEPT, STATE_ROWS_OFF, bug_named
from spark_app.lines.state_rows import state_rows_in

__all__ = ["EXHIBIT", "QUERY", "STEP", "rows_outcome", "run", "total_rows"]

BUG = bug_named("SPARK-53069")
QUERY = Path(__file__).resolve().parents[3] / "queries" / "museum" / "three_state_kinds.py"
OPTIONS: dict[str, object] = {
    "query": QUERY,
    "state_store": "rocksdb",
    "changelog_checkpointing": True,
}

STEP = exhibit_step(
    BUG,
    "a value, a list and a map state on RocksDB with changelogs, their rows counted across a "
    "restart",
    happens="the app runs queries/museum/three_state_kinds.py (RocksDB, changelog "
    "checkpointing), which touches the same state rows every batch, until two batches are "
    "committed, stops cleanly and starts again until it commits a batch; the state rows each "
    "batch reported are read from spark.log",
    watch="the app's lines, first run and restart; the narration's line with the table's "
    "prediction for this Spark line, then the line with numRowsTotal before the stop and "
    "after the restart",
    why="the restart loads the state by replaying the changelogs, and the counts the query "
    "reports come from what that replay counted for each state variable's column family",
    question="On the Spark line this run uses: the state holds as many rows before the stop "
    "as after the restart. Will the restart's numRowsTotal say so?",
    giveaway=(STATE_ROWS_OFF, "default column family"),
)


def run(stage: Stage) -> None:
    # Where this exhibit's part of spark.log begins (the exhibits before it log batches too),
    # and where the restart's does.
    log_from: list[int] = [len(stage.app.spark_log())]

    def change(checkpoint: Path) -> str:
        log_from.append(len(stage.app.spark_log()))
        return "nothing changed in the checkpoint; the restart replays its changelogs"

    with stage.step(STEP):
        restart_after(
            stage,
            BUG,
            change,
            options=OPTIONS,
            observed=lambda restart: _read_spark_log(stage, restart, log_from),
        )


def total_rows(batch: list[dict[str, Any]]) -> int:
    """numRowsTotal of a batch, summed over its state operators."""
    return sum(int(op.get("numRowsTotal", 0)) for op in batch)


def rows_outcome(
    before: dict[int, list[dict[str, Any]]], after: dict[int, list[dict[str, Any]]]
) -> str:
    """The restart's first logged batch against the last one before the stop."""
    if not before or not after:
        return "no state rows logged " + ("before the stop" if not before else "after the restart")
    last, first = total_rows(before[max(before)]), total_rows(after[min(after)])
    return STATE_ROWS_KEPT if first == last else STATE_ROWS_OFF


def _read_spark_log(stage: Stage, restart: Restart, log_from: list[int]) -> Restart:
    """The state rows of the first run's last batch and the restart's first, from spark.log."""
    text = stage.app.spark_log()
    start, cut = log_from
    before, after = state_rows_in(text[start:cut]), state_rows_in(text[cut:])
    said = (
        "numRowsTotal: "
        + ", ".join(f"batch {b} {total_rows(ops)}" for b, ops in sorted(before.items()))
        + " | after the restart: "
        + ", ".join(f"batch {b} {total_rows(ops)}" for b, ops in sorted(after.items()))
    )
    stage.say(said)
    stage.fact(f"{BUG.ticket} state rows", {"before": before, "after": after})
    if restart.outcome != RAN_ON:  # refused: its error class is the outcome
        return restart
    return Restart(
        rows_outcome(before, after),
        f"{restart.detail}; {said}",
        restart.query_id_before,
        restart.query_id_after,
    )


# On request: run all --fast has no minutes left for more exhibits.
EXHIBIT = Exhibit(BUG, run, on_request=True)
