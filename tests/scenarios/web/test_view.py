"""What the live page says, read from its HTML without a browser: every status in a word and a
sign, the planned batch without its commit, the state version a restart loads."""

from __future__ import annotations

import time
from dataclasses import replace

from scenarios.demo.state import (
    BatchView,
    CheckpointView,
    DemoState,
    SparkPhase,
    SparkView,
    StateView,
    Verdict,
    initial_state,
)
from scenarios.engine.timeline import Sample, Timeline
from scenarios.web.demo_page import DemoPage, app_status, demo_view
from scenarios.web.view import PartitionView, render_fragment
from tests.scenarios.report.html_tree import parse

CRASH_LINE = "Negative key -74 (value 74): crashing as the seed did"


def _crashed_state() -> DemoState:
    """The demo right after Enter: batch 9 planned, not committed, the app down."""
    state = initial_state(3600)
    batches = (
        BatchView(7, (("Experience-0", 70, 72),), committed=True),
        BatchView(8, (("Experience-0", 72, 73),), committed=True),
        BatchView(9, (("Experience-0", 73, 74),), committed=False),
    )
    checkpoint = CheckpointView(
        summary="batch 9 planned, not committed: a restart replays it from Experience-0@73",
        last_batch=8,
        batches=batches,
        state=StateView("state/0/0", versions=(7, 8, 9, 10), snapshots=(), restart_loads=9),
        committed_total=73,
        resume_at=(("Experience-0", 73),),
    )
    spark = SparkView(
        phase=SparkPhase.CRASHED, exit_code=255, starts=1, lines=(CRASH_LINE,), last_batch=8
    )
    verdict = Verdict(ok=True, headline="every message exactly once: 73 of 1..73 seen")
    return replace(state, spark=spark, checkpoint=checkpoint, verdict=verdict, kafka=((0, 87),))


def _timeline() -> Timeline:
    timeline = Timeline(started=time.monotonic() - 90)
    timeline.samples = [Sample(float(at), 0, at, max(0, at - 3)) for at in range(0, 90, 5)]
    return timeline


def test_a_crash_shows_the_app_crashed_and_the_batch_a_restart_replays() -> None:
    page = parse(render_fragment(demo_view(_crashed_state(), _timeline())))
    app = page.by_id("app")
    assert app.attrs["data-status"] == "crashed"
    assert "⚡" in app.text() and "CRASHED" in app.text() and "restarts 0" in app.text()
    planned = [li for li in page.find_all("li", cls="batch") if "planned" in li.attrs["class"]]
    assert [li.attrs["data-batch"] for li in planned] == ["9"]
    assert "offsets/9 [73, 74)" in planned[0].text()
    assert "no commit: a restart replays it" in planned[0].text()
    assert "a restart loads v9" in page.by_id("state").text()
    assert page.by_id("verdict").attrs["data-ok"] == "ok"
    assert CRASH_LINE in page.by_id("spark").text()
    assert "exit code 255" in page.by_id("spark").text()
    kafka = page.by_id("kafka").text()
    assert "earliest 0 · latest 87 · kept 87 · checkpoint at 73 (14 behind)" in kafka
    assert page.by_id("timeline").find("svg") is not None


def test_the_batch_left_planned_is_marked_replayed_once_the_restart_commits_it() -> None:
    published: list[str] = []
    server = type("Server", (), {"publish": lambda self, html: published.append(html)})()
    page = DemoPage(server)  # type: ignore[arg-type]
    crashed = _crashed_state()
    page.show(crashed, _timeline())
    committed = tuple(replace(b, committed=True) for b in crashed.checkpoint.batches)
    restarted = replace(
        crashed,
        spark=replace(crashed.spark, phase=SparkPhase.RUNNING, starts=2, last_batch=9),
        checkpoint=replace(crashed.checkpoint, batches=committed),
    )
    page.show(restarted, _timeline())
    page.show(restarted, _timeline())  # nothing moved: nothing sent again
    assert len(published) == 2
    after = parse(published[-1])
    nine = next(li for li in after.find_all("li", cls="batch") if li.attrs["data-batch"] == "9")
    assert "replayed" in nine.attrs["class"] and "commits/9: replayed" in nine.text()
    assert nine.attrs["data-range"] == "[73, 74)"  # the same range, replayed exactly
    assert after.by_id("app").attrs["data-status"] == "running"
    assert "restarts 1" in after.by_id("app").text()


def test_every_status_has_its_own_word() -> None:
    def status(phase: SparkPhase, starts: int = 1, last_batch: int | None = None) -> str:
        return app_status(SparkView(phase=phase, starts=starts, last_batch=last_batch))

    assert status(SparkPhase.RUNNING) == "starting"
    assert status(SparkPhase.RUNNING, starts=2) == "restarting"
    assert status(SparkPhase.RUNNING, starts=2, last_batch=4) == "running"
    assert status(SparkPhase.KILLED) == "killed"
    assert status(SparkPhase.STOPPED) == "stopped"
    assert status(SparkPhase.FAILED) == "failed"


def test_a_checkpoint_aged_out_of_kafka_says_so_in_words() -> None:
    partition = PartitionView("Experience-0", earliest=120, latest=150, checkpoint=100)
    assert partition.aged_out and "AGED OUT, a restart loses data" in partition.words()
    state = replace(
        _crashed_state(),
        kafka=((120, 150),),
        checkpoint=replace(_crashed_state().checkpoint, resume_at=(("Experience-0", 100),)),
    )
    page = parse(render_fragment(demo_view(state, _timeline())))
    bar = page.find("div", cls="partition")
    assert "aged-out" in bar.attrs["class"] and "AGED OUT" in bar.text()


def test_the_apps_words_are_escaped() -> None:
    state = replace(
        _crashed_state(),
        spark=replace(_crashed_state().spark, lines=("<script>alert(1)</script>",)),
    )
    html = render_fragment(demo_view(state, _timeline()))
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_checkpoint_label_stays_on_the_side_of_the_mark_that_has_room() -> None:
    # At 1280x720 a label to the right of a mark near the bar's end ran into the Spark panel.
    near_end = PartitionView("Experience-0", 0, 36, checkpoint=35)
    near_start = PartitionView("Experience-0", 0, 36, checkpoint=3)
    kafka = parse(
        render_fragment(
            replace(demo_view(_crashed_state(), _timeline()), partitions=(near_end, near_start))
        )
    ).by_id("kafka")
    marks = [div.attrs["class"].split() for div in kafka.find_all("div", cls="mark")]
    assert marks == [["mark", "label-before"], ["mark"]]
