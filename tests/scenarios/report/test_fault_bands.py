"""A nemesis run's faults on the timeline: recorded as bands (engine), drawn over the offsets
(report's SVG), each labelled with its fault's number and kind, one legend entry per kind."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from scenarios.engine.timeline import Band, Sample, Timeline
from scenarios.report.timeline import render, timeline_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_a_band_runs_from_its_fault_to_its_heal_and_an_open_one_to_now() -> None:
    timeline = Timeline(started=100.0)
    pause = timeline.band_start("#1 pause", "pause")
    cut = timeline.band_start("#2 kafka-cut", "kafka-cut")
    timeline.band_end(pause)
    timeline.band_end(pause)  # idempotent: the first heal counts
    first, second = timeline.bands()
    assert first.end is not None and first.end >= first.start
    assert timeline.fault_bands[0] == first
    assert second.end is not None and timeline.fault_bands[1].end is None  # drawn to now
    assert [b["label"] for b in timeline.to_dict()["fault_bands"]] == [  # type: ignore[index]
        "#1 pause",
        "#2 kafka-cut",
    ]
    del cut


def test_a_timeline_without_faults_reports_no_bands() -> None:
    assert "fault_bands" not in Timeline().to_dict()


def _svg(timeline: Timeline, **options: object) -> ET.Element:
    return ET.fromstring(timeline_svg(timeline, "nemesis", **options))  # type: ignore[arg-type]


def _texts(svg: ET.Element) -> list[str]:
    return [t.text or "" for t in svg.iter(f"{SVG}text")]


def _band_rects(svg: ET.Element) -> dict[str, ET.Element]:
    """The picture's fault bands by the fault they name when hovered."""
    rects = {}
    for rect in svg.iter(f"{SVG}rect"):
        title = rect.find(f"{SVG}title")
        if title is not None and (title.text or "").startswith("fault #"):
            rects[(title.text or "").split(":")[0].removeprefix("fault ")] = rect
    return rects


def _timeline_with_faults() -> Timeline:
    timeline = Timeline(started=0.0)
    timeline.samples = [Sample(float(at), 0, at * 10, at * 10 - 5) for at in range(0, 61, 5)]
    timeline.fault_bands = [
        Band(10.0, 20.0, "#1 pause", "pause"),
        Band(30.0, 30.0, "#2 kill", "kill"),
        Band(40.0, 45.0, "#3 pause", "pause"),
    ]
    return timeline


def test_each_fault_is_a_band_labelled_with_its_number_and_kind_and_each_kind_in_the_legend() -> (
    None
):
    svg = _svg(_timeline_with_faults())
    texts = _texts(svg)
    for label in ("#1 pause", "#2 kill", "#3 pause"):
        assert texts.count(label) == 1, label
    legend = [t for t in texts if t.startswith("fault: ")]
    assert legend == ["fault: pause", "fault: kill"]  # a kind once, in the order it came
    bands = _band_rects(svg)
    assert list(bands) == ["#1 pause", "#2 kill", "#3 pause"]
    xs = [float(r.attrib["x"]) for r in bands.values()]
    widths = [float(r.attrib["width"]) for r in bands.values()]
    assert xs == sorted(xs)  # in time order, left to right
    assert widths[0] == pytest.approx(2 * widths[2], rel=0.05)  # 10 s against 5 s
    assert widths[1] > 0  # a kill is drawn, however short
    assert bands["#1 pause"].attrib["fill"] == bands["#3 pause"].attrib["fill"]
    assert bands["#1 pause"].attrib["fill"] != bands["#2 kill"].attrib["fill"]


def test_a_band_still_held_runs_to_now_and_says_so() -> None:
    timeline = Timeline()
    timeline.sample(earliest=0, latest=5, committed=4)
    timeline.band_start("#1 kafka-cut", "kafka-cut")
    (title,) = [t.text for t in _svg(timeline).iter(f"{SVG}title") if "kafka-cut" in (t.text or "")]
    assert title is not None and title.startswith("fault #1 kafka-cut: still held since ")


def test_the_live_picture_keeps_the_recent_faults_and_their_labels_without_a_legend() -> None:
    svg = _svg(_timeline_with_faults(), last_sec=25, legend=False)
    texts = _texts(svg)
    assert "#3 pause" in texts and "#1 pause" not in texts
    assert not [t for t in texts if t.startswith("fault: ")]


def test_a_timeline_without_faults_draws_no_band() -> None:
    timeline = Timeline()
    timeline.sample(earliest=0, latest=5, committed=4)
    svg = _svg(timeline)
    assert not _band_rects(svg)
    assert not [t for t in _texts(svg) if t.startswith("fault")]


def test_a_timeline_with_bands_renders_to_the_report_file(tmp_path: Path) -> None:
    timeline = Timeline()
    for n in range(10):
        timeline.sample(earliest=0, latest=n, committed=n - 1 if n else None)
    timeline.band_end(timeline.band_start("#1 disk", "disk"))
    path = render(timeline, tmp_path / "nemesis.svg", "nemesis")
    svg = ET.parse(path).getroot()
    assert "#1 disk" in _texts(svg) and "fault: disk" in _texts(svg)
