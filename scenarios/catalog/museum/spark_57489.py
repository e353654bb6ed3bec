"""SPARK-57489: a dropDuplicates on five key columns, its checkpoint moved from Classic to
Spark Connect, and back.

Classic's `dropDuplicates(names)` turns the names into a Scala Set, and Scala's small Sets keep
the order they were given for up to four elements; from five on the Set hashes them into an
order of its own. Spark Connect's planner keeps the names' order. The state's key is a row of
those columns by position, so the same query plans two different keys: the first run's under
Classic, the restart's under Connect. With columns of different types, the restart is refused
on the state's schema; with five columns of one type it would run on and deduplicate on the
wrong columns (the ticket's silent case, not run here). 4.3.0 fixes it behind
`spark.sql.dropDuplicates.deterministicKeyOrder.enabled`.

The first run (Classic) counts with queries/connect/dedup_five_keys.py until two batches are
committed and stops cleanly; the restart runs the same module with --connect. Then back: the
app starts on Classic again, on the same checkpoint, and must commit a batch: the refused
restart changed nothing in it.

Run on 4.0.0, 4.1.1 and 4.2.0 (29 Nov 2026): the Classic state key is (group_double,
group_even, group_long, group_int, group_text) against Connect's order as written.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-57489 --fast`
"""

from __future__ import annotations

from pathlib import Path

from launch.errors import ProcessError
from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import Restart, exhibit_step, restart_after
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_schema import key_columns
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "QUERY", "STEP", "run"]

BUG = bug_named("SPARK-57489")
QUERY = Path(__file__).resolve().parents[3] / "queries" / "connect" / "dedup_five_keys.py"
BACK_CHECK = f"{BUG.ticket}: back on Classic, the checkpoint goes on"

STEP = exhibit_step(
    BUG,
    "a five-column dropDuplicates, Classic, then the restart under Spark Connect",
    happens="the app deduplicates on five key columns under Classic until two batches are "
    "committed and stops cleanly; it starts again on the same checkpoint with --connect; "
    "then once more under Classic",
    watch="the app's lines, first run, the restart under Connect and the start back on "
    "Classic; between them the narration's line with the state key's column order Classic "
    "wrote and the table's prediction for this Spark line",
    why="the state key is a row of the key columns by position: its shape is fixed by the "
    "first run's plan, and a restart whose plan orders them otherwise does not fit it",
    question="On the Spark line this run uses: the same query, the same checkpoint, only the "
    "API changed. Will the restart under Spark Connect go on, or stop (which class?)?",
    giveaway=("STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",),
    checks=(BACK_CHECK,),
)


def run(stage: Stage) -> None:
    classic = {"query": QUERY, "on_negative_key": "ignore"}

    def change(checkpoint: Path) -> str:
        order = ", ".join(key_columns(checkpoint))
        stage.fact(f"{BUG.ticket} classic key", order)
        return (
            f"nothing changed in the checkpoint; Classic's state key is ({order}); "
            "the restart runs the same query through Spark Connect"
        )

    with stage.step(STEP):
        restart_after(
            stage,
            BUG,
            change,
            options=classic,
            restart_options={**classic, "connect": True},
            observed=lambda restart: _back_on_classic(stage, restart, classic),
        )


def _back_on_classic(stage: Stage, restart: Restart, classic: dict[str, object]) -> Restart:
    """Start under Classic on the same checkpoint: it must commit a batch past the last."""
    folder = stage.folders.checkpoints
    last = max(read_checkpoint(folder).commit_ids, default=-1)
    stage.app.start(**classic)

    def committed() -> int | None:
        newest = max(read_checkpoint(folder).commit_ids, default=-1)
        return newest if newest > last else None

    try:
        stage.app.wait_while_up(committed, "a commit back on Classic", poll=0.5)
    except ProcessError:  # it exited instead: the check below says so
        pass
    if stage.app.running:
        stage.app.stop()
    newest = max(read_checkpoint(folder).commit_ids, default=-1)
    went_on = newest > last
    stage.expect(
        check(
            BACK_CHECK,
            went_on,
            f"a commit past batch {last} under Classic",
            f"newest commit {newest}" + ("" if went_on else ", the app exited"),
        )
    )
    return restart


# On request: three starts of the app, one under Connect (about 75 s), which run all --fast has
# no minutes for (docs/decisions.md).
EXHIBIT = Exhibit(BUG, run, on_request=True)
