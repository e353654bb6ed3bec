"""What every folder exhibit does: a checkpoint with state, a change to its folder, a restart.

The app runs from a new checkpoint until it has committed a few batches (so there is state,
offsets and commits), stops cleanly, the exhibit changes the folder, and the app starts again.
The restart either stops with an error (its Spark error class is the outcome) or goes on and
commits a batch (`RAN_ON`); the exhibit's verdict holds that against the museum's table. Last,
the checkpoint is deleted, so the next exhibit starts from nothing on the same Kafka.

An exhibit declares its step once, at module level (`exhibit_step`: the museum's question and
its answer by line, from the table), and runs the restart in that step's block:

    STEP = exhibit_step(BUG, "delete the metadata file, start again", happens="…", watch="…",
                        why="…", giveaway=("STREAMING_CHECKPOINT_MISSING_METADATA_FILE",))
    with stage.step(STEP):
        outcome = restart_after(stage, BUG, change=lambda folder: ...)

(`options=` the app's settings for both starts, e.g. another state store; `wait_for=` a wait of
the exhibit's own after the commits, e.g. for a snapshot; `observed=` the exhibit's own reading
of a restart, e.g. one that went on after Spark logged a failure it recovered from;
`restart_options=` the restart's own settings where they differ from the first run's, e.g. more
shuffle partitions)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from launch.waiting import wait_until
from scenarios.checker.expectations import check
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.known_bug_table import RAN_ON, KnownBug, error_classes_in, judge, line_of
from spark_app.runtime.spark_version import installed_spark_version

__all__ = [
    "RESTART_QUESTION",
    "RESTART_WATCH",
    "Restart",
    "exhibit_step",
    "hold_to_table",
    "restart_after",
    "say_prediction",
    "spark_version_of",
    "verdict_name",
]

# Batches the first run commits before the folder is changed: state of more than one version.
BATCHES_BEFORE = 2


@dataclass(frozen=True)
class Restart:
    """How the restart after the change ended."""

    outcome: str  # Spark's error class, or RAN_ON
    detail: str  # the app's line, or what the query did when it went on
    query_id_before: str | None
    query_id_after: str | None


# What every folder exhibit asks, and what is on the screen while its restart runs.
RESTART_QUESTION = (
    "On the Spark line this run uses: will the restart stop with an error (which class?) or go on?"
)
RESTART_WATCH = (
    "the app's lines, first run and restart; between them the narration's line with the table's "
    "prediction for this Spark line, and after the restart the line with what it did"
)


def verdict_name(bug: KnownBug) -> str:
    """The check that holds an exhibit's outcome against its line in the table."""
    return f"{bug.ticket}: {bug.title}"


def exhibit_step(
    bug: KnownBug,
    title: str,
    *,
    happens: str,
    watch: str,
    why: str,
    giveaway: tuple[str, ...],
    question: str = RESTART_QUESTION,
    checks: tuple[str, ...] = (),
    answer: str = "",
    verdict: bool = True,
) -> Step:
    """An exhibit's step: titled by its ticket, answered by line from the table (what each line
    did as run), its advice the table's workaround; the verdict check first among its checks
    (`verdict=False`: a step before the one that makes it, in an exhibit of several steps)."""
    return Step(
        f"{bug.ticket}: {title}",
        happens=happens,
        watch=watch,
        why=why,
        production=bug.workaround,
        question=question,
        answer=answer
        or f"By line, as run: {bug.by_line()}. The check holds this run against its line.",
        giveaway=giveaway,
        checks=(verdict_name(bug), *checks) if verdict else checks,
    )


def spark_version_of(stage: Stage) -> str:
    return stage.settings.spark_version or installed_spark_version()


def restart_after(
    stage: Stage,
    bug: KnownBug,
    change: Callable[[Path], str],
    options: Mapping[str, object] | None = None,
    wait_for: Callable[[Path], None] | None = None,
    observed: Callable[[Restart], Restart] | None = None,
    restart_options: Mapping[str, object] | None = None,
) -> Restart:
    """Run the exhibit (in its step's block): first run, `change(checkpoint)` (returns what it
    did), restart, verdict.
    Both starts take `options` (a start's settings are its own: a restart without them would
    run the app's defaults); `wait_for(checkpoint)` waits, after the commits, for what the
    change needs; `observed(restart)` reads the restart's outcome where the app's exit or
    commit alone does not tell the bug from its fix; `restart_options` replaces `options` for
    the restart."""
    folder = stage.folders.checkpoints
    started = time.monotonic()
    settings = dict(options or {})
    stage.app.start(**settings)
    _wait_for_commits(stage, folder, BATCHES_BEFORE)
    if wait_for is not None:
        wait_for(folder)
    stage.app.stop()
    before = read_checkpoint(folder)
    stage.say(change(folder))
    version = say_prediction(stage, bug)
    # The newest commit the change left (none when it deleted commits/): a commit past it is
    # the restart's own.
    left = max(read_checkpoint(folder).commit_ids, default=-1)
    again = dict(restart_options) if restart_options is not None else settings
    restart = _restart(stage, folder, bug, before.query_id, left, again)
    if observed is not None:
        restart = observed(restart)
    hold_to_table(stage, bug, version, restart, started)
    return restart


def hold_to_table(
    stage: Stage, bug: KnownBug, version: str, restart: Restart, started: float
) -> None:
    """Say what was observed, hold it against the table's line for `version` (the fact and the
    verdict check), and delete the checkpoint for the next exhibit; `started` is the exhibit's
    time.monotonic() at its first start. An exhibit with a flow of its own ends with it too."""
    stage.say(f"observed: {restart.outcome} ({restart.detail})")
    verdict = judge(bug, version, restart.outcome)
    stage.fact(
        bug.ticket,
        {
            "spark": version,
            "outcome": restart.outcome,
            "status": verdict.status,
            "query_id_before": restart.query_id_before,
            "query_id_after": restart.query_id_after,
            "seconds": round(time.monotonic() - started, 1),
        },
    )
    stage.expect(check(verdict_name(bug), verdict.held, verdict.expected, verdict.actual))
    stage.app.delete_checkpoint()


def _wait_for_commits(stage: Stage, folder: Path, batches: int) -> None:
    def committed() -> int | None:
        ids = read_checkpoint(folder).commit_ids
        return len(ids) if len(ids) >= batches else None

    stage.app.wait_while_up(committed, f"{batches} committed batches", poll=0.5)


def _restart(
    stage: Stage,
    folder: Path,
    bug: KnownBug,
    query_id: str | None,
    last_commit: int,
    options: Mapping[str, object],
) -> Restart:
    """Start again; wait until the app exits (refused) or commits past `last_commit` (went on)."""
    stage.app.start(**options)

    def ended() -> str | None:
        if not stage.app.running:
            return "exited"
        info = read_checkpoint(folder)
        return "committed" if max(info.commit_ids, default=-1) > last_commit else None

    how = wait_until(
        ended,
        timeout=stage.timings.spark_start_timeout_sec * 2,
        poll=0.5,
        what="the restart to commit a batch or to exit",
        progress=stage.waiting,
    )
    code = None
    if how == "committed":
        stage.app.stop()
    else:
        code = stage.app.wait_exit(kind="exit")
    info = read_checkpoint(folder)
    if max(info.commit_ids, default=-1) > last_commit:
        # It went on, even if it exited after the commit: Spark 4.1's connector fails the
        # trigger that replays the batch a clean stop left planned (SPARK-55271), after
        # committing it. The folder's outcome is the commit; the connector's bug is its own exhibit.
        after_exit = "" if how == "committed" else f"; then exited with code {code}"
        return Restart(
            RAN_ON,
            f"committed a batch; query id {_short(query_id)} -> "
            f"{_short(info.query_id)}{after_exit}",
            query_id,
            info.query_id,
        )
    output = stage.app.output()
    known = (bug.when_present, bug.when_fixed)
    classes = error_classes_in(output, known)
    line = stage.app.process.tail(1).strip()
    outcome = classes[0] if classes else f"exit code {code}, no error class"
    return Restart(outcome, line[:400], query_id, info.query_id)


def _short(query_id: str | None) -> str:
    return query_id[:8] if query_id else "none"


def say_prediction(stage: Stage, bug: KnownBug) -> str:
    """The table's prediction for the Spark line this run uses, said before the restart; that
    Spark version."""
    version = spark_version_of(stage)
    status = bug.lines.get(line_of(version))
    stage.say(
        f"predicted on Spark {version}: "
        + (
            f"{bug.ticket} {status} on the {line_of(version)} line, so the restart ends with: "
            f"{bug.expected_on(line_of(version))}"
            if status
            else f"nothing recorded for the {line_of(version)} line: the run records it"
        )
    )
    return version
