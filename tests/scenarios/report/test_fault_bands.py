"""A nemesis run's faults on the timeline: recorded as bands (engine), drawn over the offsets
(report), one legend entry per kind."""

from __future__ import annotations

from pathlib import Path

from scenarios.engine.timeline import Band, Timeline
from scenarios.report.timeline import _draw_bands, render


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


def test_bands_are_drawn_with_their_number_and_a_legend_entry_per_kind() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        _draw_bands(
            ax,
            [
                Band(10.0, 20.0, "#1 pause", "pause"),
                Band(30.0, 30.0, "#2 kill", "kill"),
                Band(40.0, 45.0, "#3 pause", "pause"),
            ],
        )
        labels = ax.get_legend_handles_labels()[1]
        assert labels == ["fault: pause", "fault: kill"]
        assert [t.get_text() for t in ax.texts] == ["#1", "#2", "#3"]
        spans = [p.get_x() for p in ax.patches if p.get_width() > 0]
        assert spans == [10.0, 30.0, 40.0]  # a kill is drawn, however short
    finally:
        plt.close(fig)


def test_a_timeline_with_bands_renders(tmp_path: Path) -> None:
    timeline = Timeline()
    for n in range(10):
        timeline.sample(earliest=0, latest=n, committed=n - 1 if n else None)
    timeline.band_end(timeline.band_start("#1 disk", "disk"))
    path = render(timeline, tmp_path / "t.png", "nemesis")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
