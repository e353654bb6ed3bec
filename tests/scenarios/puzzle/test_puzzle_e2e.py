"""The puzzle end to end: each fault set up for real, its job refused, its best repair judged
REPAIRED by `--check`, and a tempting wrong one judged not yet.

One room per fault: Kafka and the producer run while the test plays the attendee in the puzzle's
folder, as terminal 2 would: the job run unrepaired, the repair typed (a file removed, job.sh
edited, `spark_app reset`), then `puzzle --check`'s own function. The broken checkpoint and logs
are copied aside after the setup and put back before the wrong repair, so that both repairs
start from the same broken puzzle. CI runs one seed (torn-offsets: no retention to wait for);
the other faults are nightly (docs/testing.md#nightly).

Usage: `flock /work/notes/heavy.lock uv run pytest --slow tests/scenarios/puzzle/test_puzzle_e2e.py`
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from scenarios.engine.stacks import DEFAULT
from scenarios.exercises.room import room, room_settings
from scenarios.exercises.workspace import Setup, Workspace
from scenarios.puzzle import fault_for, seed_for
from scenarios.puzzle.check import check_repair
from scenarios.puzzle.setup import hand_over
from scenarios.puzzle_command import PUZZLE
from scenarios.run.jar_prefetch import prefetch_jars
from tests.scenarios.hands_on import snapshot, spark_app

pytestmark = [pytest.mark.spark, pytest.mark.e2e]

Repair = Callable[[Workspace, Setup], None]


def _job_line_edited(ws: Workspace, edit: Callable[[str], str]) -> None:
    lines = ws.app_script.read_text(encoding="utf-8").splitlines()
    lines[-1] = edit(lines[-1])
    ws.app_script.write_text("\n".join(lines) + "\n", encoding="utf-8")


def add_option(*words: str) -> Repair:
    return lambda ws, setup: _job_line_edited(ws, lambda line: f"{line} {' '.join(words)}")


def drop_option(*words: str) -> Repair:
    return lambda ws, setup: _job_line_edited(
        ws, lambda line: line.replace(f" {' '.join(words)}", "")
    )


def remove_torn_plan(ws: Workspace, setup: Setup) -> None:
    plan = setup.facts["last_batch"] + 1
    for name in (str(plan), f".{plan}.crc"):
        (ws.checkpoints / "offsets" / name).unlink(missing_ok=True)


def reset(ws: Workspace, setup: Setup) -> None:
    """`spark_app reset` on the puzzle's folders, as the attendee types it."""
    spark_app("reset", "--checkpoint-dir", str(ws.checkpoints), "--log-dir", str(ws.log))


def metadata_with(old_id: bool) -> Repair:
    def write(ws: Workspace, setup: Setup) -> None:
        query_id = setup.facts["query_id"] if old_id else str(uuid.uuid4())
        (ws.checkpoints / "metadata").write_text(json.dumps({"id": query_id}) + "\n")

    return write


# fault: (what the unrepaired job's last line names, the best repair, a wrong one, what
# --check says of the wrong one)
PLAYS: dict[str, tuple[str, Repair, Repair, str]] = {
    "torn-offsets": ("TORN_FILE", remove_torn_plan, reset, "a reset"),
    "retention": (
        "KAFKA_DATA_LOSS",
        add_option("--fail-on-data-loss", "false"),
        reset,
        "a reset",
    ),
    "state-schema": (
        "STATE_SCHEMA_CHANGED",
        drop_option("--state-schema", "v2"),
        reset,
        "a reset",
    ),
    # A new id is no wrong repair here: the sink skips batch N by its id alone (run, 29 Nov).
    "metadata-deleted": ("METADATA", metadata_with(old_id=True), reset, "a reset"),
    "fewer-partitions": (
        "PARTITIONS_DELETED",
        reset,
        add_option("--fail-on-data-loss", "false"),
        "never counted",
    ),
}
IN_CI = "torn-offsets"


@pytest.mark.parametrize(
    "fault",
    [pytest.param(name, marks=() if name == IN_CI else pytest.mark.nightly) for name in PLAYS],
)
def test_the_fault_breaks_its_best_repair_passes_a_wrong_one_fails(
    fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names, best, wrong, wrong_says = PLAYS[fault]
    monkeypatch.chdir(tmp_path)
    said: list[str] = []
    settings = room_settings(DEFAULT)
    prefetch_jars(settings, said.append)
    seed = seed_for(fault)
    ws = PUZZLE
    started = time.monotonic()
    with room("puzzle", ws, settings, said.append, quiet=True) as stage:
        setup = hand_over(stage, ws, seed, settings)
        set_up_sec = time.monotonic() - started
        assert fault_for(setup.facts["seed"]).name == fault
        restore = snapshot(ws, tmp_path / "broken")

        broken = check_repair(ws, setup, fault_for(seed), said.append)
        assert not broken.done
        assert "does not restart yet" in broken.lines[0]
        assert names in "\n".join(broken.lines), broken.lines

        restore()
        best(ws, setup)
        started = time.monotonic()
        repaired = check_repair(ws, setup, fault_for(seed), said.append)
        # A play's machine time, for the workshop plan (docs/workshop.md): `pytest -s` shows it.
        print(
            f"\npuzzle {fault}: setup {set_up_sec:.0f} s, check {time.monotonic() - started:.0f} s"
        )
        assert repaired.done, repaired.lines
        assert fault not in "\n".join(repaired.lines)  # the attendee's check names no fault
        # Nor does it give the answer away: the trainer's line and the best repair's words.
        answer = fault_for(seed)
        for check_lines in (broken.lines, repaired.lines):
            said_by_check = "\n".join(check_lines)
            assert not [t for t in (answer.title, *answer.best) if t in said_by_check]

        restore()
        wrong(ws, setup)
        not_yet = check_repair(ws, setup, fault_for(seed), said.append)
        assert not not_yet.done, not_yet.lines
        assert wrong_says in "\n".join(not_yet.lines), not_yet.lines
