"""What happened when, drawn as one SVG picture: the report's timeline and the live page's.

The engine records the data (scenarios/engine/timeline.py); this draws it, for the HTML report
after a run (`render`, a file the report embeds and links) and for the live page while a run or
the demo goes (`timeline_svg`, inline, redrawn as samples arrive, `last_sec` showing the last
minutes only). One renderer, so the report and the page cannot drift apart.

The picture shows Kafka's earliest and latest offsets over time (retention deleting segments is
the earliest line stepping up), the offset the Spark app has committed in its checkpoint, when
the app was up, and the moments it was killed, stopped or crashed. Reading it explains most
outcomes: a restart fails with data loss exactly when the committed line is below the earliest.
A nemesis run's faults are bands over the offsets and the commits, from each fault to its heal,
one colour per kind, each labelled with its number and kind as in the history and the kinds in
the legend, so the divergence the checker names can be read against the fault it followed.
A scenario that samples its checkpoint folder (`folder(...)`, checkpoint-growth) gets a second
panel below, on the same time axis: the files in each sub-folder and the folder's size.

Colour is never the only sign: each line has its own dash pattern and its name at its end, each
event its label, and the legend draws every style. Plain SVG text, no script and no font to
fetch: a projector's browser shows it offline, and a test reads its labels as text.

Usage:
    render(stage.timeline, Path("reports/endless-retention.svg"), title="endless-retention")
    page_picture = timeline_svg(timeline, "demo", last_sec=300, large=True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from scenarios.engine.timeline import Band, Event, FolderPoint, Sample, Timeline

__all__ = ["label_lanes", "render", "timeline_svg", "LINE_STYLES", "EVENT_STYLES"]

# (colour, dash pattern, width): the Okabe-Ito palette, which reads for colour-blind eyes too.
LINE_STYLES: dict[str, tuple[str, str, float]] = {
    "latest": ("#0072B2", "", 2.0),
    "earliest": ("#D55E00", "9 5", 2.5),
    "committed": ("#009E73", "", 4.0),
}
LINE_NAMES = {
    "latest": "Kafka latest offset",
    "earliest": "Kafka earliest offset",
    "committed": "Spark committed offset (checkpoint)",
}
EVENT_STYLES: dict[str, tuple[str, str]] = {
    "start": ("#009E73", ""),
    "kill": ("#D55E00", ""),
    "stop": ("#B07800", "7 4"),
    "crash": ("#CC79A7", "10 3 2 3"),
    "exit": ("#555555", "2 3"),
    "reset": ("#000000", "12 4"),
    "note": ("#0072B2", "2 3"),
}
_FOLDER_COLOURS = {
    "offsets": "#0072B2",
    "commits": "#56B4E9",
    "state": "#009E73",
    "sources": "#555555",
    "other": "#B07800",
}
_UP_FILL = "#009E73"
_DELETED = "#D55E00"
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
# A fault band's colour, by the fault's kind (scenarios/engine/faults/schedule.py); each band is
# labelled with its kind as well, so the colour only groups them.
_BAND_COLOUR: dict[str, str] = {
    "kill": "#D55E00",
    "term": "#E69F00",
    "pause": "#CC79A7",
    "kafka-cut": "#56B4E9",
    "broker": "#0072B2",
    "store-cut": "#F0E442",
    "disk": "#882255",
    "executor": "#555555",
}
# A kill or a SIGTERM is healed by the restart that follows at once: drawn this wide at least.
_MIN_BAND_SEC = 0.6

# Event labels stand upright along the top; two closer than this share of the time axis would
# print over each other, so the later one drops into the next lane down.
_LABEL_GAP = 0.018
# Beyond this many retention deletions (retention of seconds deletes at every sample) the
# earliest line says it alone.
_MAX_DELETION_MARKS = 40


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
    """Draw `timeline` into an SVG file at `path` and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(timeline_svg(timeline, title), encoding="utf-8")
    partial.replace(path)  # a browser reloading the report mid-run sees a whole picture
    return path


@dataclass(frozen=True)
class _Box:
    """A panel's plot area in pixels, and the data ranges it maps."""

    left: float
    top: float
    width: float
    height: float
    x0: float
    x1: float
    y0: float
    y1: float

    def x(self, at: float) -> float:
        return self.left + (at - self.x0) / ((self.x1 - self.x0) or 1.0) * self.width

    def y(self, value: float) -> float:
        return (
            self.top + self.height - (value - self.y0) / ((self.y1 - self.y0) or 1.0) * self.height
        )

    @property
    def bottom(self) -> float:
        return self.top + self.height

    @property
    def right(self) -> float:
        return self.left + self.width


def timeline_svg(
    timeline: Timeline,
    title: str,
    *,
    last_sec: float | None = None,
    width: int = 1100,
    height: int | None = None,
    font: int = 12,
    legend: bool = True,
) -> str:
    """The picture as SVG text: the whole run, or its last `last_sec` seconds. A projector's
    page asks for bigger type (`font`) and may leave the legend out: every line is named at
    its end and every event by its label anyway."""
    samples, events, periods, points = timeline.snapshot()
    bands = timeline.bands()  # a fault not yet healed ends now
    held = {b.label for b in list(timeline.fault_bands) if b.end is None}
    end = max(
        [s.at for s in samples] + [e.at for e in events] + [b for _, b in periods]
        + [b.end or b.start for b in bands] + [1.0]
    )  # fmt: skip
    start = max(0.0, end - last_sec) if last_sec else 0.0
    samples = [s for s in samples if s.at >= start]
    events = [e for e in events if e.at >= start]
    points = [p for p in points if p.at >= start]
    periods = [(max(a, start), b) for a, b in periods if b >= start]
    bands = [b for b in bands if (b.end or b.start) >= start]
    has_folder = bool(points)
    if height is None:
        height = int(width * (0.78 if has_folder else 0.45))
    margin_left, margin_right = font * 5.2, font * 11
    title_height = font * 2.2
    legend_items = _legend_items(has_folder, bands) if legend else []
    legend_rows = _flow(legend_items, margin_left, width - font, 0.0, font)[1] if legend else 0
    legend_height = legend_rows * font * 1.5 + font * 0.8
    usable = height - title_height - legend_height - font * 2.6
    offsets_height = usable * (0.48 if has_folder else 1.0)
    values = [v for s in samples for v in (s.earliest, s.latest, s.committed) if v is not None]
    low, high = _nice_range(min(values, default=0), max(values, default=10))
    box = _Box(
        margin_left, title_height, width - margin_left - margin_right, offsets_height,
        start, end, low, high,
    )  # fmt: skip
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="{_FONT}" font-size="{font}" '
        f'role="img" aria-label="{escape(title)}: timeline">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{margin_left}" y="{font * 1.4:.1f}" font-size="{font * 1.2:.1f}" '
        f'font-weight="bold">{escape(title)}</text>',
    ]
    parts += _up_bands(box, periods)
    parts += _fault_bands(box, bands, held, font)
    parts += _grid(box, font, "offset", show_x=not has_folder)
    parts += _offset_lines(box, samples, font)
    deletions = [d for d in timeline.retention_deletions() if d[0] >= start]
    if len(deletions) <= _MAX_DELETION_MARKS:
        parts += [_marker(box.x(at), box.y(after), font) for at, _, after in deletions]
    parts += _events(box, events, font, top_labels=True)
    bottom = box.bottom
    if has_folder:
        folder_box = _Box(
            margin_left, box.bottom + font * 2.6, box.width, usable - offsets_height - font * 2.6,
            start, end, 0, 1,
        )  # fmt: skip
        parts += _folder_panel(folder_box, points, periods, events, font)
        bottom = folder_box.bottom
    window = f" (the last {last_sec:.0f} s)" if start else ""
    parts.append(
        f'<text x="{margin_left + box.width / 2:.1f}" y="{bottom + font * 2.3:.1f}" '
        f'text-anchor="middle">seconds since the start{window}</text>'
    )
    if legend:
        top = height - legend_height + font * 1.2
        parts += _flow(legend_items, margin_left, width - font, top, font)[0]
    parts.append("</svg>")
    return "\n".join(parts)


def _nice_step(span: float, ticks: int = 5) -> float:
    raw = max(span, 1e-9) / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _nice_range(low: float, high: float) -> tuple[float, float]:
    """A range with round ends that holds both values, never empty."""
    if high <= low:
        high = low + 10
    step = _nice_step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def _ticks(low: float, high: float) -> list[float]:
    step = _nice_step(high - low)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1 or value == 0 else f"{value:g}"


def _grid(box: _Box, font: int, y_label: str, show_x: bool = True) -> list[str]:
    parts = [
        f'<rect x="{box.left}" y="{box.top}" width="{box.width:.1f}" height="{box.height:.1f}" '
        f'fill="none" stroke="#333333" stroke-width="1"/>'
    ]
    for value in _ticks(box.y0, box.y1):
        y = box.y(value)
        parts.append(
            f'<line x1="{box.left}" x2="{box.right:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#cccccc" stroke-width="1"/>'
            f'<text x="{box.left - font * 0.4:.1f}" y="{y + font * 0.35:.1f}" '
            f'text-anchor="end">{_number(value)}</text>'
        )
    for at in _ticks(box.x0, box.x1):
        x = box.x(at)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{box.top}" y2="{box.bottom:.1f}" '
            f'stroke="#e3e3e3" stroke-width="1"/>'
        )
        if show_x:
            parts.append(
                f'<text x="{x:.1f}" y="{box.bottom + font * 1.1:.1f}" '
                f'text-anchor="middle">{_number(at)}</text>'
            )
    parts.append(
        f'<text transform="translate({font * 1.1:.1f} {box.top + box.height / 2:.1f}) '
        f'rotate(-90)" text-anchor="middle">{escape(y_label)}</text>'
    )
    return parts


def _up_bands(box: _Box, periods: Sequence[tuple[float, float]]) -> list[str]:
    """The app's up periods: a pale band behind the lines."""
    parts = []
    for start, end in periods:
        x0, x1 = box.x(start), box.x(end)
        parts.append(
            f'<rect x="{x0:.1f}" y="{box.top}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{box.height:.1f}" fill="{_UP_FILL}" fill-opacity="0.08"/>'
        )
    return parts


def _fault_bands(box: _Box, bands: Sequence[Band], held: set[str], font: int) -> list[str]:
    """Each fault as a band from its application to its heal (`held`: the labels of those not
    healed yet, drawn to now), behind the lines, its label ("#3 pause", as the history numbers
    it) upright along the bottom; a hover names its span."""
    parts = []
    span = (box.x1 - box.x0) or 1.0
    lanes = label_lanes([b.start for b in bands], span * _LABEL_GAP)
    for band, lane in zip(bands, lanes):
        colour = _BAND_COLOUR.get(band.kind, "#555555")
        end = max(band.end if band.end is not None else band.start, band.start + _MIN_BAND_SEC)
        x0, x1 = box.x(max(band.start, box.x0)), box.x(end)
        since = f"{band.start:.1f} to {band.end or band.start:.1f} s"
        if band.label in held:
            since = f"still held since {band.start:.1f} s"
        parts.append(
            f'<rect x="{x0:.1f}" y="{box.top}" width="{max(x1 - x0, 2):.1f}" '
            f'height="{box.height:.1f}" fill="{colour}" fill-opacity="0.22">'
            f"<title>fault {escape(band.label)}: {since}</title></rect>"
        )
        y = box.bottom - font * 0.3 - (lane % 3) * box.height * 0.3
        # Dark grey, not the band's colour: a pale band (yellow) would make pale text.
        parts.append(
            f'<text transform="translate({x0 + font * 0.9:.1f} {y:.1f}) rotate(-90)" '
            f'fill="#333333" font-size="{font * 0.85:.1f}" stroke="#ffffff" stroke-width="3" '
            f'paint-order="stroke">{escape(band.label)}</text>'
        )
    return parts


def _step_path(box: _Box, samples: Sequence[Sample], name: str) -> str:
    """A step line (each value holds until the next sample); a sample without the value breaks
    it. Only the changes are drawn: an hour's samples stay a few points where nothing moved."""
    commands: list[str] = []
    last: float | None = None
    for sample in samples:
        value = getattr(sample, name)
        x = box.x(sample.at)
        if value is None:
            last = None
            continue
        y = box.y(value)
        if last is None:
            commands.append(f"M{x:.1f} {y:.1f}")
        elif value != last:
            commands.append(f"H{x:.1f}V{y:.1f}")
        last = value
    if commands and last is not None and samples:
        commands.append(f"H{box.x(samples[-1].at):.1f}")
    return "".join(commands)


def _offset_lines(box: _Box, samples: Sequence[Sample], font: int) -> list[str]:
    parts = []
    ends: list[tuple[float, str, str]] = []
    for name in ("latest", "earliest", "committed"):
        colour, dash, width = LINE_STYLES[name]
        path = _step_path(box, samples, name)
        if not path:
            continue
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<path d="{path}" fill="none" stroke="{colour}" '
            f'stroke-width="{width * max(1.0, font / 12):.1f}"{dashed}>'
            f"<title>{LINE_NAMES[name]}</title></path>"
        )
        known = [getattr(s, name) for s in samples if getattr(s, name) is not None]
        if known:
            ends.append((box.y(known[-1]), f"{name} {known[-1]:,}", colour))
    # Each line's name and value at its right end, pushed apart so none covers another.
    placed: list[float] = []
    for y, label, colour in sorted(ends):
        y = max([y, *(p + font * 1.15 for p in placed)])
        placed.append(y)
        parts.append(
            f'<text x="{box.right + font * 0.4:.1f}" y="{y + font * 0.35:.1f}" fill="{colour}" '
            f'font-weight="bold">{escape(label)}</text>'
        )
    return parts


def _marker(x: float, y: float, font: int) -> str:
    """A downward triangle with its tip on the earliest line: retention deleted up to here."""
    size = font * 0.45
    return (
        f'<path d="M{x - size:.1f} {y - size * 1.6:.1f}H{x + size:.1f}L{x:.1f} {y:.1f}Z" '
        f'fill="{_DELETED}"><title>retention deleted</title></path>'
    )


def _events(box: _Box, events: Sequence[Event], font: int, top_labels: bool) -> list[str]:
    parts = []
    span = (box.x1 - box.x0) or 1.0
    lanes = label_lanes([e.at for e in events], span * _LABEL_GAP)
    lane_height = box.height * 0.3
    for event, lane in zip(events, lanes):
        colour, dash = EVENT_STYLES.get(event.kind, EVENT_STYLES["note"])
        x = box.x(event.at)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{box.top}" y2="{box.bottom:.1f}" '
            f'stroke="{colour}" stroke-width="1.5"{dashed}/>'
        )
        if not top_labels:
            continue
        y = box.top + font * 0.3 + (lane % 3) * lane_height
        parts.append(
            f'<text transform="translate({x - font * 0.3:.1f} {y:.1f}) rotate(-90)" '
            f'text-anchor="end" fill="{colour}" font-size="{font * 0.85:.1f}" '
            f'stroke="#ffffff" stroke-width="3" paint-order="stroke">{escape(event.label)}</text>'
        )
    return parts


def _folder_panel(
    box: _Box,
    points: Sequence[FolderPoint],
    periods: Sequence[tuple[float, float]],
    events: Sequence[Event],
    font: int,
) -> list[str]:
    """Files per sub-folder and in all (left axis), the folder's size in KB (right axis)."""
    names = [
        name
        for name in dict.fromkeys(k for p in points for k in p.files)
        if any(p.files.get(name) for p in points)
    ]
    totals = [sum(p.files.values()) for p in points]
    low, high = _nice_range(0, max(totals, default=1))
    files_box = _Box(box.left, box.top, box.width, box.height, box.x0, box.x1, low, high)
    parts = _up_bands(files_box, periods)
    parts += _grid(files_box, font, "files in the checkpoint")
    parts += _events(files_box, events, font, top_labels=False)
    series: list[tuple[str, Callable[[FolderPoint], float], str, str]] = [
        (
            f"files in {name}/",
            lambda p, n=name: p.files.get(n, 0),
            _FOLDER_COLOURS.get(name, "#CC79A7"),
            "",
        )
        for name in names
    ]
    series.append(("files in all", lambda p: sum(p.files.values()), "#000000", ""))
    for label, value, colour, dash in series:
        line = " ".join(
            f"{'M' if i == 0 else 'L'}{files_box.x(p.at):.1f} {files_box.y(value(p)):.1f}"
            for i, p in enumerate(points)
        )
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(
            f'<path d="{line}" fill="none" stroke="{colour}" stroke-width="2"{dashed}>'
            f"<title>{escape(label)}</title></path>"
        )
    size_low, size_high = _nice_range(0, max((p.total_bytes / 1024 for p in points), default=1))
    size_box = _Box(box.left, box.top, box.width, box.height, box.x0, box.x1, size_low, size_high)
    line = " ".join(
        f"{'M' if i == 0 else 'L'}{size_box.x(p.at):.1f} {size_box.y(p.total_bytes / 1024):.1f}"
        for i, p in enumerate(points)
    )
    parts.append(
        f'<path d="{line}" fill="none" stroke="#D55E00" stroke-width="2" '
        f'stroke-dasharray="8 4"><title>size (KB, right axis)</title></path>'
    )
    for value in _ticks(size_low, size_high):
        parts.append(
            f'<text x="{box.right + font * 0.4:.1f}" y="{size_box.y(value) + font * 0.35:.1f}">'
            f"{_number(value)} KB</text>"
        )
    keys = [(label, colour, dash) for label, _, colour, dash in series]
    keys.append(("size (KB, right axis)", "#D55E00", "8 4"))
    legend, _ = _flow(keys, box.left + font * 0.6, box.right, box.top + font * 1.3, font)
    parts.append(f'<g font-size="{font * 0.9:.1f}">{"".join(legend)}</g>')
    return parts


def _legend_item(x: float, y: float, label: str, colour: str, dash: str, font: int) -> str:
    """A line sample in its style, then its name; `y` is the text's baseline."""
    if dash == "band":
        sample = (
            f'<rect x="{x:.1f}" y="{y - font * 0.9:.1f}" width="{font * 2.2:.1f}" '
            f'height="{font * 1.1:.1f}" fill="{colour}" fill-opacity="0.2"/>'
        )
    elif dash == "marker":
        sample = _marker(x + font * 1.1, y - font * 0.1, font)
    else:
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        sample = (
            f'<line x1="{x:.1f}" x2="{x + font * 2.2:.1f}" y1="{y - font * 0.35:.1f}" '
            f'y2="{y - font * 0.35:.1f}" stroke="{colour}" stroke-width="3"{dashed}/>'
        )
    return f'{sample}<text x="{x + font * 2.7:.1f}" y="{y:.1f}">{escape(label)}</text>'


def _legend_items(has_folder: bool, bands: Sequence[Band] = ()) -> list[tuple[str, str, str]]:
    """(label, colour, dash) of every style the picture uses, a fault kind's band once each;
    "band" and "marker" are shapes."""
    items = [
        (LINE_NAMES[name], LINE_STYLES[name][0], LINE_STYLES[name][1])
        for name in ("latest", "earliest", "committed")
    ]
    events = (("start", "started"), ("kill", "killed"), ("stop", "stopped"), ("crash", "crashed"))
    items += [(label, *EVENT_STYLES[kind]) for kind, label in (*events, ("reset", "reset"))]
    items += [("Spark app up", _UP_FILL, "band"), ("retention deleted", _DELETED, "marker")]
    kinds = dict.fromkeys(b.kind for b in bands)
    items += [(f"fault: {kind}", _BAND_COLOUR.get(kind, "#555555"), "band") for kind in kinds]
    return items


def _flow(
    items: Sequence[tuple[str, str, str]], left: float, right: float, top: float, font: int
) -> tuple[list[str], int]:
    """The items laid out left to right, wrapping at `right`; the SVG and the rows it took."""
    parts, x, row = [], left, 0
    for label, colour, dash in items:
        # DejaVu Sans averages about 0.6 of the font size per character.
        wide = font * (3.6 + 0.6 * len(label))
        if x + wide > right and x > left:
            x, row = left, row + 1
        parts.append(_legend_item(x, top + row * font * 1.5, label, colour, dash, font))
        x += wide
    return parts, row + 1
