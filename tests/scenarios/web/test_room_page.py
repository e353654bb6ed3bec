"""`exercise NAME --web` and `puzzle --seed S --web`: the command lines, and what the page shows
of an exercise or the puzzle, read from its HTML without a browser: the task once handed over,
the attendee's job, and never an exercise's answer or the puzzle's fault.

No process starts: the stage's events are told by hand, the folder is written as the setup and
the job leave it."""

from __future__ import annotations

import io
import json
import os
import time
from pathlib import Path

import pytest

from launch.ports import port_is_free
from scenarios.cli import run_cli
from scenarios.engine.events import Said, StageOpened
from scenarios.engine.timeline import Timeline
from scenarios.exercises import find_exercise
from scenarios.exercises.exercise import Attempt, fill
from scenarios.exercises.workspace import Setup, Workspace
from scenarios.puzzle import FAULTS
from scenarios.puzzle.setup import story_lines
from scenarios.web.live_run import live_room
from scenarios.web.options import WebChoice
from scenarios.web.room_brief import exercise_brief, puzzle_brief
from scenarios.web.room_page import RoomPage
from tests.scenarios.exercises.test_exercise_command import output_lines
from tests.scenarios.web.frames import Frames

# skipped-range's answer is the offsets [PROCESSED, EARLIEST): numbers no other part of the
# folder below holds, so a leak is seen by searching for them.
PROCESSED, EARLIEST, LATEST = 137, 164, 171
PLANNED = 152


def _folder(root: Path, timeline: Timeline) -> StageOpened:
    """The stage opened on `root`, with a checkpoint committed up to PROCESSED and a batch
    planned after it, Kafka past it, and an output log up to PROCESSED."""
    (root / "processes").mkdir(parents=True)
    (root / "log").mkdir()
    _write_batch(root / "checkpoints", 0, 100, committed=True)
    _write_batch(root / "checkpoints", 1, PROCESSED, committed=True)
    _write_batch(root / "checkpoints", 2, PLANNED, committed=False)
    Workspace(root).output_log.write_text(output_lines([(v, v) for v in range(1, PROCESSED + 1)]))
    timeline.sample(0, EARLIEST, LATEST, ((EARLIEST, LATEST),))
    return StageOpened(root / "processes", scenario=root.name, timeline=timeline)


def _write_batch(checkpoints: Path, batch_id: int, end: int, committed: bool) -> None:
    for kind in ("offsets", "commits"):
        (checkpoints / kind).mkdir(parents=True, exist_ok=True)
    meta = json.dumps({"batchTimestampMs": 1, "conf": {}})
    plan = checkpoints / "offsets" / str(batch_id)
    plan.write_text(f"v1\n{meta}\n" + json.dumps({"Experience": {"0": end}}))
    if committed:
        (checkpoints / "commits" / str(batch_id)).write_text('v1\n{"nextBatchWatermarkMs":0}')


def _age(path: Path, seconds: float) -> None:
    """Make a file look written `seconds` ago (before the hand-over)."""
    at = time.time() - seconds
    os.utime(path, (at, at))


# -- the command lines ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["exercise", "--list", "--web"],
        ["exercise", "skipped-range", "--check", "12-40", "--web"],
        ["exercise", "skipped-range", "--hint", "--web-port", "8765"],
        ["exercise", "skipped-range", "--reset", "--web"],
        ["exercise", "--answers", "--web-host", "0.0.0.0"],
    ],
)
def test_web_on_an_exercise_goes_with_its_setup_only(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("exercise: --web goes with setting an exercise up")


@pytest.mark.parametrize(
    "argv",
    [
        ["puzzle", "--check", "--web"],
        ["puzzle", "--answer", "7", "--web"],
        ["puzzle", "--reset", "--web-port", "8765"],
    ],
)
def test_web_on_the_puzzle_goes_with_seed_only(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("puzzle: --web goes with --seed S")


def test_a_bad_port_on_the_puzzle_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        run_cli(["puzzle", "--seed", "7", "--web-port", "70000"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "70000 is not a port number" in err


def test_the_rooms_page_serves_while_the_terminal_holds_and_stops_with_it() -> None:
    with live_room(None, puzzle_brief(7)) as page:
        assert page.listeners == ()
    out = io.StringIO()
    with live_room(WebChoice(), puzzle_brief(7), out=out) as page:
        printed = out.getvalue()
        assert printed.startswith("live page: http://127.0.0.1:")
        assert "runs the steps" not in printed  # nothing to step in a room
        port = int(printed.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        assert not port_is_free(port) and len(page.listeners) == 1
    assert port_is_free(port)


# -- an exercise's page --------------------------------------------------------------------------
def test_an_exercise_shows_its_task_once_handed_over_and_the_folder_as_a_run_does(
    tmp_path: Path,
) -> None:
    exercise = find_exercise("fix-forward")  # judges the folder alone: nothing to withhold
    frames = Frames()
    page = RoomPage(frames, exercise_brief(exercise))  # type: ignore[arg-type]
    root = tmp_path / "fix-forward"
    page.hear(_folder(root, Timeline()))
    page.hear(Said("Kafka at 127.0.0.1:40123, topic Experience"))
    assert "Setting up the exercise" in frames.last.by_id("task").text()
    ws = Workspace(root)
    task = [fill(step, ws, None, exercise.name) for step in exercise.task]
    page.handed_over(task)
    frame = frames.last
    assert frame.find("h1").text() == "exercise fix-forward"
    assert f"module {exercise.module} · {exercise.title}" in frame.text()
    shown = [li.text() for li in frame.by_id("task").find_all("li")]
    assert shown == [line.strip() for line in task]
    assert f"checkpoint at {PROCESSED}: AGED OUT" in frame.by_id("kafka").text()
    assert f"offsets/2 [{PROCESSED}, {PLANNED})" in frame.by_id("checkpoint").text()
    assert frame.by_id("app").attrs["data-status"] == "not started"  # no job on the folder


def test_an_exercise_that_asks_for_an_answer_never_shows_it(tmp_path: Path) -> None:
    exercise = find_exercise("skipped-range")
    assert exercise.expected is not None
    frames = Frames()
    page = RoomPage(frames, exercise_brief(exercise))  # type: ignore[arg-type]
    root = tmp_path / "skipped-range"
    page.hear(_folder(root, Timeline()))
    ws = Workspace(root)
    setup = Setup(exercise.name, "apache/connector", "127.0.0.1:40123", "Experience", ())
    facts = {"processed": PROCESSED, "earliest": EARLIEST}
    setup = Setup(**{**setup.__dict__, "facts": facts})
    page.handed_over([fill(step, ws, setup, exercise.name) for step in exercise.task])
    page.sample()
    html = "\n".join(frames.shown)
    answer = exercise.expected(Attempt(ws, setup))
    assert answer.startswith(f"{PROCESSED}-{EARLIEST}")  # what the page must keep back
    assert str(PROCESSED) not in html and str(EARLIEST) not in html
    frame = frames.last
    assert "would give away this exercise's answer (--check FROM-UNTIL)" in frame.text()
    batches = {
        li.attrs["data-batch"]: li.attrs["data-committed"]
        for li in frame.find_all("li", cls="batch")
    }
    assert batches == {"0": "yes", "1": "yes", "2": "no"}  # the commits stay, the ranges go
    assert str(PLANNED) not in html
    assert frame.by_id("verdict").attrs["data-ok"] == "ok"
    for line in exercise.solution:
        assert fill(line, ws, setup, exercise.name) not in html


# -- the puzzle's page ---------------------------------------------------------------------------
@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_the_puzzle_page_never_gives_its_fault_away(tmp_path: Path, fault: object) -> None:
    frames = Frames()
    page = RoomPage(frames, puzzle_brief(7))  # type: ignore[arg-type]
    root = tmp_path / "puzzle"
    timeline = Timeline()
    page.hear(_folder(root, timeline))
    timeline.event("checkpoint deleted", "reset")  # the setup's history, as a fault makes it
    page.hear(Said(f"the setup breaks it: {fault.name}, {fault.title}"))  # type: ignore[attr-defined]
    page.sample()  # the setup still runs: nothing is read
    assert "Setting up the puzzle" in frames.last.by_id("task").text()
    for path in (root / "checkpoints").rglob("*"):
        _age(path, 60)  # the broken checkpoint, as the setup left it
    ws = Workspace(root, script="job.sh")
    setup = Setup("puzzle", "apache/connector", "127.0.0.1:40123", "Experience", (), {})
    story = story_lines(ws, setup)
    page.handed_over(story)
    page.sample()
    html = "\n".join(frames.shown)
    for secret in (fault.name, fault.title, *fault.sees, *fault.best, *fault.wrong):  # type: ignore[attr-defined]
        assert secret not in html
    assert str(PROCESSED) not in html and str(EARLIEST) not in html
    assert "checkpoint deleted" not in html
    frame = frames.last
    assert frame.find("h1").text() == "puzzle 7"
    assert [li.text() for li in frame.by_id("task").find_all("li")] == [
        " ".join(s.split()) for s in story
    ]
    assert frame.find_all("li", cls="batch") == []  # the broken checkpoint stays unshown
    # The job's first batch after the repair shows, with its commit and without its range.
    _write_batch(root / "checkpoints", 2, PROCESSED + 6, committed=True)
    page.sample()
    batches = frames.last.find_all("li", cls="batch")
    assert [(li.attrs["data-batch"], li.attrs["data-committed"]) for li in batches] == [
        ("2", "yes")
    ]
    assert str(PROCESSED + 6) not in frames.shown[-1]
