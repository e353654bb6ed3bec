"""SPARK-53942: a restart asked for more shuffle partitions, from 4.1 on.

A checkpoint pins spark.sql.shuffle.partitions in every offsets file, and up to 4.0 a restart
puts the checkpoint's value back into the session for the whole query (query-changes shows a
restart asked for 4 that kept 1). apache/spark#52645 (4.1) splits the two: the state's number of
partitions goes into an internal setting of its own
(spark.sql.streaming.internal.stateStore.partitions), and a restart puts the checkpoint's value
back into that one only, so spark.sql.shuffle.partitions stays what the restart was started with
and drives the stateless shuffles. The state stays where it was either way.

What tells the lines apart is what the restart rebinds. The offsets file cannot: it writes the
state's number under spark.sql.shuffle.partitions on every line (so an older Spark reads it
right), which the first run of this exhibit read as "pinned" on 4.2.0 too (29 Nov 2026). Spark
says it in spark.log as it reads the offset log back, at WARN: `Updating the value of conf
'<key>' in current session from '4' to '1'`, with spark.sql.shuffle.partitions as the key on
4.0.0 and the internal one on 4.1.1 and 4.2.0. The exhibit reads the restart's part of
spark.log for that line, and the state folder for the state's partitions.

The app counts with its defaults (1 shuffle partition) until two batches are committed, stops
cleanly and starts again with `--shuffle-partitions 4` until it commits a batch.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-53942 --fast`
"""

from __future__ import annotations

import re
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import Restart, exhibit_step, restart_after
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from spark_app.lines.known_bug_table import (
    RAN_ON,
    SHUFFLES_FOLLOWED,
    SHUFFLES_PINNED,
    bug_named,
)

__all__ = [
    "EXHIBIT",
    "STEP",
    "run",
    "FIRST_PARTITIONS",
    "ASKED_PARTITIONS",
    "SHUFFLE_KEY",
    "STATE_KEY",
    "rebound",
    "shuffles_seen",
    "state_partitions",
]

BUG = bug_named("SPARK-53942")

FIRST_PARTITIONS = 1  # the app's default
ASKED_PARTITIONS = 4
SHUFFLE_KEY = "spark.sql.shuffle.partitions"
# 4.1's own setting for the state's partitions.
STATE_KEY = "spark.sql.streaming.internal.stateStore.partitions"
STATE_CHECK = f"{BUG.ticket}: the state stayed in the checkpoint's partitions"

STEP = exhibit_step(
    BUG,
    f"restart with --shuffle-partitions {ASKED_PARTITIONS} on a checkpoint of {FIRST_PARTITIONS}",
    happens=f"the app counts with {FIRST_PARTITIONS} shuffle partition until two batches are "
    f"committed and stops cleanly; it starts again with --shuffle-partitions "
    f"{ASKED_PARTITIONS} until it commits a batch; the restart's part of spark.log and the "
    "state folder are read",
    watch="the app's lines, first run and restart; the narration's line with the table's "
    "prediction for this Spark line, then the "
    "narration's line with the setting the restart took back from the checkpoint as it read "
    "the offset log, and the state's partitions",
    why="Spark logs each setting it takes back from the checkpoint into the session: the one "
    f"it names is the one pinned ({SHUFFLE_KEY}: every shuffle; {STATE_KEY}: the state only), "
    "and the state folder has a folder per state partition",
    question=f"On the Spark line this run uses: does the restart run its shuffles at "
    f"{ASKED_PARTITIONS} partitions, or keep the checkpoint's {FIRST_PARTITIONS}, and the state?",
    giveaway=(STATE_KEY,),
    checks=(STATE_CHECK,),
)


def run(stage: Stage) -> None:
    log_from: list[int] = []

    def change(checkpoint: Path) -> str:
        log_from.append(len(stage.app.spark_log()))
        return (
            "nothing changed in the checkpoint; the restart asks for "
            f"{ASKED_PARTITIONS} shuffle partitions"
        )

    with stage.step(STEP):
        restart_after(
            stage,
            BUG,
            change,
            options={"shuffle_partitions": FIRST_PARTITIONS},
            restart_options={"shuffle_partitions": ASKED_PARTITIONS},
            observed=lambda restart: _read_spark_log(stage, restart, log_from),
        )


# OffsetSeqMetadata's line as it sets a setting from the offset log into the session.
_REBOUND = re.compile(
    r"Updating the value of conf '([^']+)' in current session from '([^']*)' to '([^']*)'"
)


def rebound(spark_log: str) -> dict[str, tuple[str, str]]:
    """The settings a restart took back from its checkpoint: key -> (asked, restored)."""
    return {m.group(1): (m.group(2), m.group(3)) for m in _REBOUND.finditer(spark_log)}


def shuffles_seen(changed: dict[str, tuple[str, str]]) -> str:
    """What a restart asked for more partitions did, by what it rebound: the state's own
    setting only (the stateless shuffles keep the new number), the shuffle's (every shuffle
    back to the checkpoint's), or what it said."""
    if SHUFFLE_KEY in changed:
        return SHUFFLES_PINNED
    if STATE_KEY in changed:
        return SHUFFLES_FOLLOWED
    return f"neither {SHUFFLE_KEY} nor {STATE_KEY} rebound from the offset log"


def state_partitions(checkpoint: Path) -> list[int]:
    """The partitions the first stateful operator keeps state in (state/0/<partition>)."""
    operator = checkpoint / "state" / "0"
    if not operator.is_dir():
        return []
    return sorted(int(p.name) for p in operator.iterdir() if p.is_dir() and p.name.isdigit())


def _read_spark_log(stage: Stage, restart: Restart, log_from: list[int]) -> Restart:
    """What the restart rebound, from its part of spark.log; the state's partitions."""
    text = stage.app.spark_log()[log_from[0] if log_from else 0 :]
    changed = {k: v for k, v in rebound(text).items() if k in (SHUFFLE_KEY, STATE_KEY)}
    partitions = state_partitions(stage.folders.checkpoints)
    said = (
        "spark.log: "
        + (
            "; ".join(f"{k} rebound from {a} to {b}" for k, (a, b) in changed.items())
            or "no shuffle setting rebound"
        )
        + f"; state partitions: {partitions}"
    )
    stage.say(said)
    stage.fact(
        f"{BUG.ticket} restart",
        {"rebound": {k: list(v) for k, v in changed.items()}, "state_partitions": partitions},
    )
    stage.expect(
        check(
            STATE_CHECK,
            partitions == list(range(FIRST_PARTITIONS)),
            f"state/0/ holds partitions {list(range(FIRST_PARTITIONS))} only",
            f"state/0/ holds {partitions}",
        )
    )
    if restart.outcome != RAN_ON:  # refused: its error class is the outcome
        return restart
    return Restart(
        shuffles_seen(changed),
        f"{restart.detail}; {said}",
        restart.query_id_before,
        restart.query_id_after,
    )


EXHIBIT = Exhibit(BUG, run)
