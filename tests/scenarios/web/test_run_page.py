"""A run's live page as the stage speaks: a step's question before it runs, its answer after,
stepping from the page only for the step that waits; the app's life from the timeline."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from pathlib import Path

import pytest

from scenarios.checker.expectations import check
from scenarios.engine.events import Checked, StageClosed, StageOpened, StepEnded, StepStarted
from scenarios.engine.scenario import Scenario
from scenarios.engine.step import Step
from scenarios.engine.timeline import Timeline
from scenarios.web.run_page import RunPage, app_from_timeline
from scenarios.web.stepping import StepGate
from tests.scenarios.web.frames import Frames

STEP = Step(
    "Kill the Spark app",
    happens="kill -9 of its process group",
    question="Will a restart count any message twice?",
    answer="No: it replays the planned batch exactly.",
    why="offsets/N is written before the batch runs.",
)


def _scenario() -> Scenario:
    return Scenario(
        name="chaos",
        title="kill -9 at random moments",
        summary="",
        origin="seed 001",
        run=lambda stage: None,
    )


def _opened(root: Path, timeline: Timeline) -> StageOpened:
    (root / "processes").mkdir(parents=True)
    (root / "log").mkdir()
    return StageOpened(root / "processes", scenario="chaos", timeline=timeline)


def _page(frames: Frames, guided: bool) -> RunPage:
    return RunPage(frames, [_scenario()], guided=guided)  # type: ignore[arg-type]


def test_a_step_shows_its_question_then_its_answer(tmp_path: Path) -> None:
    frames = Frames()
    page = _page(frames, guided=False)
    page.hear(_opened(tmp_path / "chaos", Timeline()))
    page.hear(StepStarted(STEP, 3))
    step = frames.last.by_id("step")
    assert step.attrs["data-phase"] == "running" and step.attrs["data-number"] == "3"
    assert STEP.question in step.text() and STEP.answer not in frames.shown[-1]
    page.hear(Checked(check("nothing doubled", True, "0 doubled", "0 doubled")))
    page.hear(StepEnded(STEP, 3))
    step = frames.last.by_id("step")
    assert step.attrs["data-phase"] == "answered"
    assert STEP.answer in step.text() and STEP.why in step.text()
    assert "✔ held: nothing doubled" in step.text()
    assert (
        "kill -9 at random moments" in frames.last.text()
        and "scenario 1 of 1" in frames.last.text()
    )
    page.hear(StageClosed())
    assert "ended" in frames.last.text()


def test_the_answer_stays_on_the_page_under_the_next_question(tmp_path: Path) -> None:
    """A stage starts the next step as soon as one ends: the answer must not go with it."""
    frames = Frames()
    page = _page(frames, guided=True)
    page.hear(_opened(tmp_path / "chaos", Timeline()))
    page.hear(StepStarted(STEP, 1))
    assert frames.last.by_id("step").attrs["data-phase"] == "asked"
    assert STEP.answer not in frames.shown[-1]
    page.hear(StepEnded(STEP, 1))
    nxt = Step("Restart it", happens="r", question="From which offset?", answer="From the batch.")
    page.hear(StepStarted(nxt, 2))
    step = frames.last.by_id("step")
    assert step.attrs["data-phase"] == "asked" and step.attrs["data-number"] == "2"
    before = frames.last.by_id("answer-before")
    assert "Step 1's answer" in before.text() and STEP.answer in before.text()
    assert nxt.question in step.text() and nxt.answer not in frames.shown[-1]
    page.hear(StepEnded(nxt, 2))  # answered: its own answer, not the one before
    assert nxt.answer in frames.shown[-1] and STEP.answer not in frames.shown[-1]


def test_a_guided_step_waits_with_a_button_and_runs_on_the_page_or_on_enter(tmp_path: Path) -> None:
    frames = Frames()
    page = _page(frames, guided=True)
    read, write = os.pipe()
    out = io.StringIO()
    gate = StepGate(on_wait=page.waiting, keys=os.fdopen(read), out=out)
    page.hear(_opened(tmp_path / "chaos", Timeline()))
    for listener in (page.hear, gate.hear):
        listener(StepStarted(STEP, 1))
    answered: list[str] = []
    asking = threading.Thread(target=lambda: answered.append(gate.ask("[chaos] press Enter ")))
    asking.start()
    deadline = time.monotonic() + 10
    while not frames.shown[-1].count('id="run-step"') and time.monotonic() < deadline:
        time.sleep(0.02)
    button = frames.last.by_id("run-step")
    assert (
        button.attrs["data-step"] == "1"
        and frames.last.by_id("step").attrs["data-phase"] == "asked"
    )
    assert gate.release(2) == "step 2 is not the one waiting (step 1 is)"  # a stale tab
    assert gate.release(1) is None
    asking.join(timeout=10)
    assert answered == [""] and "(or Run step 1 on the live page)" in out.getvalue()
    assert frames.last.by_id("step").attrs["data-phase"] == "running"
    assert 'id="run-step"' not in frames.shown[-1]
    assert gate.release(1) == "no step is waiting: it is running, or the run is over"
    # The next step goes on with Enter in the terminal instead.
    for listener in (page.hear, gate.hear):
        listener(StepStarted(STEP, 2))
    os.write(write, b"\n")
    assert gate.ask("[chaos] press Enter ") == "\n"
    os.close(write)
    with pytest.raises(EOFError):  # the terminal's input ended, as input() says it
        gate.ask("[chaos] press Enter ")


def test_the_checkpoint_and_the_verdict_are_read_as_the_demo_reads_them(tmp_path: Path) -> None:
    frames = Frames()
    page = _page(frames, guided=False)
    root = tmp_path / "chaos"
    timeline = Timeline()
    page.hear(_opened(root, timeline))
    offsets = root / "checkpoints" / "offsets"
    offsets.mkdir(parents=True)
    (root / "checkpoints" / "commits").mkdir()
    for batch_id, end in ((0, 4), (1, 6)):
        meta = json.dumps({"batchTimestampMs": 1, "conf": {}})
        (offsets / str(batch_id)).write_text(
            f"v1\n{meta}\n" + json.dumps({"Experience": {"0": end}})
        )
    (root / "checkpoints" / "commits" / "0").write_text('v1\n{"nextBatchWatermarkMs":0}')
    (root / "processes" / "spark-1.out").write_text("batch 0: Experience-0 [0, 4) rows=4 count=4\n")
    timeline.sample(0, 8, 4, ((0, 8),))
    timeline.app_up()
    page.sample()
    frame = frames.last
    batches = {
        li.attrs["data-batch"]: li.attrs["data-committed"]
        for li in frame.find_all("li", cls="batch")
    }
    assert batches == {"0": "yes", "1": "no"}
    assert "checkpoint at 4 (4 behind)" in frame.by_id("kafka").text()
    assert "batch 0: Experience-0 [0, 4)" in frame.by_id("spark").text()
    assert frame.by_id("app").attrs["data-status"] == "running"


def test_the_apps_status_comes_from_the_timeline() -> None:
    timeline = Timeline()
    assert app_from_timeline(timeline) == ("not started", 0)
    timeline.app_up()
    assert app_from_timeline(timeline) == ("running", 0)
    timeline.event("kill -9", "kill")
    timeline.app_down()
    assert app_from_timeline(timeline) == ("killed", 0)
    timeline.app_up()
    timeline.event("exit 255", "crash")
    timeline.app_down()
    assert app_from_timeline(timeline) == ("crashed", 1)
    timeline.app_up()
    timeline.event("exit 1", "exit")
    timeline.app_down()
    assert app_from_timeline(timeline) == ("failed", 2)
