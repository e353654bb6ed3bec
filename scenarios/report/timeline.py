"""What happened when, drawn as one picture per scenario (matplotlib, no display needed).

The engine records the data (scenarios/engine/timeline.py); this draws it.

The picture shows Kafka's earliest and latest offsets over time (retention deleting segments is
the earliest line stepping up), the offset the Spark app has committed in its checkpoint, when
the app was up, and the moments it was killed, stopped or crashed. Reading it explains most
outcomes: a restart fails with data loss exactly when the committed line is below the earliest.
A nemesis run's faults are bands over the offsets and the commits, from each fault to its heal,
one colour per kind and labelled with the fault's number, so the divergence the checker names
can be read against the fault it followed.
A scenario that samples its checkpoint folder (`folder(...)`, checkpoint-growth) gets a second
panel below, on the same time axis: the files in each sub-folder and the folder's size.

Usage:
    render(stage.timeline, Path("reports/endless-retention.png"), title="endless-retention")
"""

from __future__ import annotations

from pathlib import Path

from scenarios.engine.timeline import Band, Event, FolderPoint, Sample, Timeline

__all__ = ["label_lanes", "render"]

_EVENT_STYLE: dict[str, tuple[str, str]] = {
    "start": ("tab:green", "-"),
    "kill": ("tab:red", "-"),
    "stop": ("tab:orange", "-"),
    "crash": ("tab:purple", "-"),
    "exit": ("tab:gray", ":"),
    "reset": ("black", "--"),
    "note": ("tab:blue", ":"),
}


# A fault band's colour, by the fault's kind (scenarios/engine/faults/schedule.py).
_BAND_COLOUR: dict[str, str] = {
    "kill": "tab:red",
    "term": "tab:orange",
    "pause": "tab:purple",
    "kafka-cut": "tab:cyan",
    "broker": "tab:brown",
    "store-cut": "tab:olive",
    "disk": "tab:pink",
    "executor": "tab:gray",
}
# A kill or a SIGTERM is healed by the restart that follows at once: drawn this wide at least.
_MIN_BAND_SEC = 0.6


# Event labels stand upright along the top; two closer than this share of the time axis would
# print over each other, so the later one drops into the next lane down.
_LABEL_GAP = 0.018
_LANE_HEIGHT = 0.3


def label_lanes(times: list[float], gap: float) -> list[int]:
    """For events in time order, the lowest lane whose previous label is at least `gap` away."""
    last_in_lane: list[float] = []
    lanes = []
    for at in times:
        lane = next(
            (i for i, last in enumerate(last_in_lane) if at - last >= gap), len(last_in_lane)
        )
        if lane == len(last_in_lane):
            last_in_lane.append(at)
        else:
            last_in_lane[lane] = at
        lanes.append(lane)
    return lanes


def render(timeline: Timeline, path: Path, title: str) -> Path:
    """Draw `timeline` into a PNG at `path` and return the path."""
    import matplotlib

    matplotlib.use("Agg")  # files only: CI and ssh sessions have no display
    import matplotlib.pyplot as plt

    samples, events, periods, points = timeline.snapshot()
    deletions = timeline.retention_deletions()
    if points:
        fig, (ax, folder_ax) = plt.subplots(
            2, 1, figsize=(11, 9), sharex=True, gridspec_kw={"height_ratios": [1, 1.2]}
        )
    else:
        fig, ax = plt.subplots(figsize=(11, 5.5))
        folder_ax = None
    try:
        _draw_offsets(ax, samples)
        for start, end in periods:
            ax.axvspan(start, end, color="tab:green", alpha=0.08, lw=0)
        _draw_bands(ax, timeline.bands())
        # With retention of seconds every sample deletes something; the line says it then.
        for at, _, after in deletions if len(deletions) <= 40 else []:
            ax.plot([at], [after], marker="v", color="tab:brown", ms=6, ls="none")
        span = max((e.at for e in events), default=0.0) or 1.0
        for event, lane in zip(events, label_lanes([e.at for e in events], span * _LABEL_GAP)):
            colour, style = _EVENT_STYLE[event.kind]
            ax.axvline(event.at, color=colour, ls=style, lw=1)
            ax.annotate(
                event.label,
                (event.at, 1.0 - lane * _LANE_HEIGHT),
                xycoords=("data", "axes fraction"),
                rotation=90,
                va="top",
                ha="right",
                fontsize=7,
                color=colour,
                bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
            )
        ax.plot([], [], marker="v", color="tab:brown", ls="none", label="retention deleted")
        ax.axvspan(0, 0, color="tab:green", alpha=0.15, label="Spark app up")
        if folder_ax is not None:
            _draw_folder(folder_ax, points, periods, events)
            folder_ax.set_xlabel("seconds since the scenario started")
        else:
            ax.set_xlabel("seconds since the scenario started")
        ax.set_ylabel("offset")
        ax.set_title(title)
        # Below the chart, so it never hides the event labels along the top; with the
        # folder's panel below, in the chart's lower right, where the offsets start.
        if folder_ax is None:
            ax.legend(
                loc="upper center",
                bbox_to_anchor=(0.5, -0.12),
                ncol=5,
                fontsize=8,
                frameon=False,
            )
        else:
            ax.legend(loc="lower right", ncol=2, fontsize=7, framealpha=0.8)
        ax.grid(alpha=0.3)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
    finally:
        plt.close(fig)
    return path


def _draw_bands(ax: object, bands: list[Band]) -> None:
    """Each fault as a band from its application to its heal, its number along the bottom; one
    legend entry per kind."""
    for band in bands:
        colour = _BAND_COLOUR.get(band.kind, "tab:gray")
        end = max(band.end if band.end is not None else band.start, band.start + _MIN_BAND_SEC)
        ax.axvspan(band.start, end, color=colour, alpha=0.22, lw=0)  # type: ignore[attr-defined]
        ax.annotate(  # type: ignore[attr-defined]
            band.label.split(" ")[0],
            (band.start, 0.01),
            xycoords=("data", "axes fraction"),
            rotation=90,
            va="bottom",
            ha="left",
            fontsize=6,
            color=colour,
        )
    for kind in dict.fromkeys(b.kind for b in bands):
        ax.axvspan(  # type: ignore[attr-defined]
            0, 0, color=_BAND_COLOUR.get(kind, "tab:gray"), alpha=0.3, label=f"fault: {kind}"
        )


def _draw_offsets(ax: object, samples: list[Sample]) -> None:
    def series(name: str) -> tuple[list[float], list[float]]:
        # Gaps (Kafka unreachable, no checkpoint yet) become breaks in the line.
        xs = [s.at for s in samples]
        ys = [float("nan") if getattr(s, name) is None else getattr(s, name) for s in samples]
        return xs, ys

    for name, colour, style in (
        ("latest", "tab:blue", "-"),
        ("earliest", "tab:brown", "-"),
        ("committed", "tab:green", "-"),
    ):
        xs, ys = series(name)
        label = {
            "latest": "Kafka latest offset",
            "earliest": "Kafka earliest offset",
            "committed": "Spark committed offset (checkpoint)",
        }[name]
        ax.step(xs, ys, where="post", color=colour, ls=style, lw=1.6, label=label)  # type: ignore[attr-defined]


def _draw_folder(
    ax: object,
    points: list[FolderPoint],
    periods: list[tuple[float, float]],
    events: list[Event],
) -> None:
    """Files per sub-folder (left axis) and the folder's size in KB (right axis)."""
    xs = [p.at for p in points]
    parts = [
        name
        for name in dict.fromkeys(k for p in points for k in p.files)
        if any(p.files.get(name) for p in points)
    ]
    colours = {
        "offsets": "tab:blue",
        "commits": "tab:cyan",
        "state": "tab:green",
        "sources": "tab:gray",
        "other": "tab:olive",
    }
    for name in parts:
        ax.plot(
            xs,
            [p.files.get(name, 0) for p in points],
            lw=1.4,  # type: ignore[attr-defined]
            color=colours.get(name, "tab:pink"),
            label=f"files in {name}/",
        )
    ax.plot(
        xs,
        [sum(p.files.values()) for p in points],
        lw=1.8,
        color="black",  # type: ignore[attr-defined]
        label="files in all",
    )
    for start, end in periods:
        ax.axvspan(start, end, color="tab:green", alpha=0.08, lw=0)  # type: ignore[attr-defined]
    for event in events:
        colour, style = _EVENT_STYLE[event.kind]
        ax.axvline(event.at, color=colour, ls=style, lw=1)  # type: ignore[attr-defined]
    ax.set_ylabel("files in the checkpoint")  # type: ignore[attr-defined]
    ax.grid(alpha=0.3)  # type: ignore[attr-defined]
    size_ax = ax.twinx()  # type: ignore[attr-defined]
    size_ax.plot(
        xs,
        [p.total_bytes / 1024 for p in points],
        lw=1.6,
        ls="--",
        color="tab:red",
        label="size (KB, right axis)",
    )
    size_ax.set_ylabel("size of the checkpoint (KB)")
    size_ax.set_ylim(bottom=0)
    lines, labels = ax.get_legend_handles_labels()  # type: ignore[attr-defined]
    more, more_labels = size_ax.get_legend_handles_labels()
    ax.legend(
        lines + more,
        labels + more_labels,
        loc="upper left",
        fontsize=8,  # type: ignore[attr-defined]
        ncol=3,
        framealpha=0.8,
    )
