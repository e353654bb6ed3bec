"""Every exercise end to end, done right and done wrong: the setup for real, then what an
attendee types in terminal 2, judged by `exercise NAME --check`'s own judge.

One room per exercise, as `exercise NAME` keeps it: Kafka and the producer run while the test
plays the attendee. The folder is copied aside after the setup and put back before the wrong
attempt, so that both start from the same situation. CI runs fix-forward (the three-hour plan's
exercise); the others are nightly (docs/testing.md#nightly).

Usage: `flock /work/notes/heavy.lock uv run pytest --slow tests/scenarios/exercises/test_exercises_e2e.py`
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from scenarios.checker.verify import verify_file
from scenarios.engine.stacks import DEFAULT
from scenarios.exercises import find_exercise
from scenarios.exercises.exercise import Attempt
from scenarios.exercises.hand_over import hand_over
from scenarios.exercises.room import room, room_settings
from scenarios.exercises.skipped_range import joined
from scenarios.exercises.workspace import EXERCISE_HOME, Setup, Workspace
from scenarios.run.jar_prefetch import prefetch_jars
from spark_app.checkpoint.inspect import report_in_output
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import CheckpointError
from spark_app.lines.data_loss_lines import skipped_ranges_in
from tests.scenarios.hands_on import run_job, snapshot, spark_app

pytestmark = [pytest.mark.spark, pytest.mark.e2e]

# What the attendee does; it returns the answer given to --check (None: the folder alone).
Play = Callable[[Workspace, Setup], "str | None"]


def reset(ws: Workspace) -> None:
    spark_app("reset", "--checkpoint-dir", str(ws.checkpoints), "--log-dir", str(ws.log))


def with_options(*options: str, reset_first: bool = False) -> Play:
    def play(ws: Workspace, setup: Setup) -> None:
        if reset_first:
            reset(ws)
        run_job(ws, setup.app_args, *options)

    return play


def skipped_range(off_by: int) -> Play:
    """Restart with failOnDataLoss=false and name the range spark.log's warnings give."""

    def play(ws: Workspace, setup: Setup) -> str:
        run_job(ws, setup.app_args, "--fail-on-data-loss", "false")
        text = ws.spark_log.read_text(encoding="utf-8", errors="replace")
        found = joined(skipped_ranges_in(text))
        assert found is not None, "spark.log names no skipped range"
        return f"{found[0]}-{found[1] + off_by}"

    return play


def from_offsets(where: str) -> Play:
    """A reset, and the new checkpoint started from `where`: the offsets inspect reads, or a
    word (earliest, latest)."""

    def play(ws: Workspace, setup: Setup) -> None:
        inspect = ["inspect", "--checkpoint-dir", str(ws.checkpoints), "--json"]
        found = report_in_output(
            spark_app(*inspect, "--bootstrap-servers", setup.bootstrap_servers)
        )
        assert found is not None and found["resume_from"], found
        start = json.dumps(found["resume_from"]) if where == "inspect" else where
        reset(ws)
        run_job(ws, setup.app_args, "--starting-offsets", start)

    return play


def kill_until_doubled(ws: Workspace, setup: Setup) -> str:
    """The at-least-once sink under kill -9 at random moments, until a value is doubled; the
    number of doubled values verify reports."""
    rng = random.Random(55)
    for _ in range(6):
        run_job(
            ws, setup.app_args, "--sink", "at-least-once", new_messages=rng.randint(2, 6), kill=True
        )
        if verify_file(ws.output_log).duplicated:
            break
    run_job(ws, setup.app_args, "--sink", "at-least-once", new_messages=3)
    return str(len(verify_file(ws.output_log).duplicated))


def wrong_count(ws: Workspace, setup: Setup) -> str:
    return str(int(kill_until_doubled(ws, setup)) + 1)


def count_at(last: bool) -> Play:
    """The count inspect reads through the State Data Source, at the asked batch or the last."""

    def play(ws: Workspace, setup: Setup) -> str:
        args = ["inspect", "--checkpoint-dir", str(ws.checkpoints), "--json"]
        args += ["--state-source"] if last else ["--state-batch", str(setup.facts["batch"])]
        found = report_in_output(spark_app(*args, "--log-dir", str(ws.log)))
        assert found is not None and found["state_source"], found
        return str(found["state_source"]["count"])

    return play


def capped(ws: Workspace, setup: Setup, cap: int | None) -> None:
    end = setup.facts["backlog_end"]

    def caught_up() -> bool:
        try:
            info = read_checkpoint(ws.checkpoints)
        except CheckpointError:  # a file mid-write: read it again at the next poll
            return False
        return bool(info.last_committed and (info.last_committed.end_total or 0) >= end)

    options = ["--max-offsets-per-trigger", str(cap)] if cap else []
    run_job(ws, setup.app_args, *options, until=caught_up)


# exercise: (done right, done wrong, what --check says of the wrong one)
PLAYS: dict[str, tuple[Play, Play, str]] = {
    "skipped-range": (skipped_range(0), skipped_range(1), "not"),
    "reset-from-offsets": (from_offsets("inspect"), from_offsets("earliest"), "twice"),
    "fix-forward": (
        with_options("--on-negative-key", "ignore"),
        with_options("--on-negative-key", "ignore", reset_first=True),
        "replaced",
    ),
    "count-the-doubles": (kill_until_doubled, wrong_count, "not"),
    "allowed-change": (
        with_options("--output-format", "v2"),
        with_options("--output-format", "v2", "--state-schema", "v2", reset_first=True),
        "replaced",  # the release went out on a reset: the judge's first words for it
    ),
    "count-at-batch": (count_at(last=False), count_at(last=True), "is not the count"),
    "capped-backlog": (
        lambda ws, setup: capped(ws, setup, setup.facts["cap"]),
        lambda ws, setup: capped(ws, setup, None),
        "offsets at once",
    ),
}
IN_CI = "fix-forward"


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=() if n == IN_CI else pytest.mark.nightly) for n in PLAYS]
)
def test_done_right_it_is_done_and_done_wrong_it_is_not_yet(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    right, wrong, wrong_says = PLAYS[name]
    exercise = find_exercise(name)
    monkeypatch.chdir(tmp_path)
    said: list[str] = []
    settings = room_settings(DEFAULT)
    prefetch_jars(settings, said.append)
    ws = Workspace(EXERCISE_HOME / name)
    with room(f"exercise-{name}", ws, settings, said.append) as stage:
        setup = hand_over(exercise, stage, ws, settings)
        restore = snapshot(ws, tmp_path / "as-set-up")

        done = exercise.judge(Attempt(ws, setup, right(ws, setup)))
        assert done.done, done.lines

        restore()
        not_yet = exercise.judge(Attempt(ws, setup, wrong(ws, setup)))
        assert not not_yet.done, not_yet.lines
        assert wrong_says in "\n".join(not_yet.lines), not_yet.lines
