"""SPARK-53743: a transformWithState list of (i, None) pairs, put and read back.

PySpark's `ListState.put` sent the list to Spark's state server through Arrow, casting each
integer column to numpy's int32 on the way, which a None in a nullable field cannot be: the
batch fails with a TypeError from pandas. apache/spark#52479 sends the list in Spark's own
protocol instead. The ticket has the Arrow path taken for a list large enough only; 4.0.0's
list_state_client.py sends every put and appendList through it, so there a list of one such
element fails too (read in the 4.0.0 wheel, not run).

queries/museum/list_state_nulls.py puts 100 pairs (i, None), as Spark's regression test does,
in every batch, and reads the list back first. Where the bug is present the first batch fails,
so the exhibit's flow is its own: the outcome is the Python error the failed run left in the
app's output and spark.log. Where it is fixed the app runs until two batches are committed,
stops cleanly and starts again until it commits a batch; the restart's output rows say what the
list held when its batch began, loaded from the checkpoint's RocksDB.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53743 --fast`
"""

from __future__ import annotations

import time
from pathlib import Path

from launch.waiting import wait_until
from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import (
    BATCHES_BEFORE,
    Restart,
    exhibit_step,
    hold_to_table,
    say_prediction,
)
from scenarios.engine.faults.kills import query_output
from scenarios.engine.stage import Stage
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import (
    LIST_PUT_FAILED,
    LIST_READ_BACK,
    bug_named,
    error_classes_in,
)
from spark_app.lines.query_rows import BATCH_COLUMN, read_written

__all__ = [
    "ELEMENTS",
    "EXHIBIT",
    "QUERY",
    "STEP",
    "failure_outcome",
    "read_back_outcome",
    "run",
    "rows_after",
]

BUG = bug_named("SPARK-53743")
QUERY = Path(__file__).resolve().parents[3] / "queries" / "museum" / "list_state_nulls.py"
OPTIONS: dict[str, object] = {"query": QUERY, "state_store": "rocksdb"}
ELEMENTS = 100  # the query module's list length

# What pandas says when it casts a None to an int (numpy's astype, int() of a NoneType).
_NONE_TO_INT = ("int() argument must be", "NoneType")

STEP = exhibit_step(
    BUG,
    f"a list state of {ELEMENTS} (i, None) pairs, put every batch, read back after a restart",
    happens=f"the app runs queries/museum/list_state_nulls.py on RocksDB: every batch reads "
    f"the list state, then puts {ELEMENTS} pairs (i, None) into it (schema value int, "
    "valueNull int, both nullable); where it fails, that run's error is read; where it goes "
    "on, the app stops after two commits and starts again until it commits a batch, and the "
    "restart's output says what the list held",
    watch="the app's lines: a first run that stops with an error, or a first run and a "
    "restart; then the narration's line with what the restart's batch read back",
    why="a list state's put sends the whole list from the Python worker to Spark's state "
    "server; through Arrow, pandas casts a nullable int column to int32 first, which a None "
    "cannot be; Spark's own protocol sends each row as it is",
    question="On the Spark line this run uses: will the put of 100 pairs (i, None) fail the "
    "batch, or will the restart read them back with every None kept?",
    giveaway=("TypeError", "int32"),
)


def run(stage: Stage) -> None:
    with stage.step(STEP):
        started = time.monotonic()
        version = say_prediction(stage, BUG)
        folder = stage.folders.checkpoints
        # An exhibit before this one may have run a query module on the same app folders (its
        # checkpoint is deleted, its batch files are not): they are not this query's rows.
        for old in query_output(stage).glob("batch-*.jsonl"):
            old.unlink()
        stage.app.start(**OPTIONS)
        if _commits_or_exit(stage, folder, after=-1, batches=BATCHES_BEFORE) == "exited":
            restart = _failed(stage, None)
        else:
            stage.app.stop()
            before = read_checkpoint(folder)
            last = max(before.commit_ids, default=-1)
            stage.say(f"nothing changed in the checkpoint; the restart reads the list after {last}")
            stage.app.start(**OPTIONS)
            if _commits_or_exit(stage, folder, after=last, batches=1) == "exited":
                restart = _failed(stage, before.query_id)
            else:
                stage.app.stop()
                every = rows_after(query_output(stage), -1)
                stage.fact(
                    f"{BUG.ticket} rows",
                    [{k: r[k] for k in ("batch_id", "read_back", "nulls_read")} for r in every],
                )
                rows = [r for r in every if int(str(r["batch_id"])) > last]
                restart = Restart(
                    read_back_outcome(rows),
                    "; ".join(
                        f"batch {r['batch_id']} read back {r['read_back']} elements, "
                        f"{r['nulls_read']} with valueNull null"
                        for r in rows
                    )
                    or "no output row after the restart",
                    before.query_id,
                    read_checkpoint(folder).query_id,
                )
        hold_to_table(stage, BUG, version, restart, started)


def _commits_or_exit(stage: Stage, folder: Path, after: int, batches: int) -> str:
    """Wait until `batches` batches past `after` are committed ("committed"), or the app has
    exited ("exited"): the bug fails a batch, so the app's end is an outcome, not a failure."""

    def ended() -> str | None:
        if not stage.app.running:
            return "exited"
        done = [c for c in read_checkpoint(folder).commit_ids if c > after]
        return "committed" if len(done) >= batches else None

    return wait_until(
        ended,
        timeout=stage.timings.spark_start_timeout_sec * 2,
        poll=0.5,
        what=f"{batches} committed batches, or the app's exit",
        progress=stage.waiting,
    )


def _failed(stage: Stage, query_id_before: str | None) -> Restart:
    """The run that stopped: its outcome from what the app printed and Spark logged."""
    code = stage.app.wait_exit(kind="exit")
    printed = stage.app.output()
    outcome = failure_outcome(printed, stage.app.spark_log(), code)
    line = stage.app.process.tail(1).strip()
    return Restart(
        outcome,
        line[:400],
        query_id_before,
        read_checkpoint(stage.folders.checkpoints).query_id,
    )


def failure_outcome(printed: str, spark_log: str, code: int | None) -> str:
    """A run that stopped: the bug's outcome when pandas' cast of a None to int is in its words
    (the app's line or Spark's log of the failed task), else the class the app printed."""
    if all(words in printed or words in spark_log for words in _NONE_TO_INT):
        return LIST_PUT_FAILED
    classes = error_classes_in(printed, (LIST_PUT_FAILED,))
    return classes[0] if classes else f"exit code {code}, no error class"


def rows_after(folder: Path, last_commit: int) -> list[dict[str, object]]:
    """The query's output rows of the batches after `last_commit`, in batch order."""
    return [row for row in read_written(folder) if int(row[BATCH_COLUMN]) > last_commit]


def read_back_outcome(rows: list[dict[str, object]]) -> str:
    """The fix's outcome when the restart's first row read the whole list back, every None
    kept; what it read otherwise (a third behaviour)."""
    if not rows:
        return "no output row after the restart"
    first = rows[0]
    if first["read_back"] == ELEMENTS and first["nulls_read"] == ELEMENTS:
        return LIST_READ_BACK
    return (
        f"the restart's batch read back {first['read_back']} elements, "
        f"{first['nulls_read']} with valueNull null"
    )


# On request: run all --fast has no minutes left for more exhibits.
EXHIBIT = Exhibit(BUG, run, on_request=True)
