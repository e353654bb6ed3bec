"""The workshop's pictures, drawn by code: the checkpoint folder, a batch's life, retention's race.

docs/workshop.md shows them; they are drawn here (matplotlib, no display needed) so that a
change to what they show is a change to code, reviewed like any other, and a test renders them.

Usage:
    uv run python -m scenarios.report.diagrams docs/img     # writes the three PNGs there
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

__all__ = ["DIAGRAMS", "render_all"]

_INK, _PALE, _ACCENT, _DANGER = "#1f2937", "#eef2f7", "#2563eb", "#b91c1c"


def _box(
    ax: Axes,
    x: float,
    y: float,
    w: float,
    h: float,
    text: str,
    *,
    face: str = _PALE,
    edge: str = _INK,
    size: float = 10,
    weight: str = "normal",
) -> None:
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=face,
            edgecolor=edge,
            linewidth=1.2,
        )
    )
    ax.text(
        x + w / 2,
        y + h / 2,
        text,
        ha="center",
        va="center",
        fontsize=size,
        color=_INK,
        weight=weight,
        wrap=True,
    )


def _arrow(
    ax: Axes, start: tuple[float, float], end: tuple[float, float], colour: str = _INK
) -> None:
    ax.annotate(
        "", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "color": colour, "linewidth": 1.4}
    )


def _canvas(width: float, height: float, title: str) -> tuple[plt.Figure, Axes]:
    fig, ax = plt.subplots(figsize=(width, height))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.axis("off")
    ax.set_title(title, fontsize=13, weight="bold", color=_INK, loc="left")
    return fig, ax


def checkpoint_folder() -> plt.Figure:
    """What `checkpoints/` holds, and which file answers which question at a restart."""
    fig, ax = _canvas(12, 6.2, "The checkpoint folder: what a restart reads")
    rows = [
        ("metadata", "the query's id: the same query across restarts"),
        ("offsets/N", "batch N's planned end offsets per partition, written BEFORE it runs"),
        ("commits/N", "batch N done: its output and state were written"),
        ("sources/0/0", "where the very first batch started (startingOffsets, once)"),
        (
            "state/0/<partition>/V.delta",
            "the running counts after batch V-1 (version = batch + 1; RocksDB: V.zip + changelog)",
        ),
        ("state/0/_metadata", "the state's operator and schema: a changed schema is refused"),
    ]
    for i, (name, meaning) in enumerate(rows):
        y = 5.0 - i * 0.85
        _box(ax, 0.3, y, 3.6, 0.62, name, face="white", edge=_ACCENT, size=11, weight="bold")
        ax.text(4.2, y + 0.31, meaning, va="center", fontsize=10.5, color=_INK)
    ax.text(
        0.3,
        0.2,
        "Resume rule: the last offsets/N without commits/N is replayed with exactly "
        "the same range; then planning goes on from its end.",
        fontsize=10.5,
        color=_DANGER,
        weight="bold",
    )
    return fig


def batch_life() -> plt.Figure:
    """One micro-batch, left to right, and what a crash at each point means."""
    fig, ax = _canvas(13, 4.6, "A batch's life, and where a crash leaves it")
    stages = [
        "plan the range\n[start, end)",
        "write\noffsets/N",
        "read Kafka\n[start, end)",
        "update state\n((N+1).delta)",
        "write output\n(sink)",
        "write\ncommits/N",
    ]
    for i, text in enumerate(stages):
        x = 0.3 + i * 2.1
        _box(ax, x, 2.5, 1.8, 1.1, text, face="white" if i % 5 else _PALE, edge=_ACCENT)
        if i:
            _arrow(ax, (x - 0.3, 3.05), (x, 3.05))
    crashes = [
        (1.2, "crash here: nothing written;\nthe next start plans again"),
        (5.4, "crash here: offsets/N has no commit;\nthe restart REPLAYS the same range"),
        (11.7, "after commits/N:\nthe next batch starts"),
    ]
    for x, text in crashes:
        _arrow(ax, (x, 2.4), (x, 1.6), colour=_DANGER)
        ax.text(x, 1.45, text, ha="center", va="top", fontsize=9.5, color=_DANGER)
    return fig


def retention_race() -> plt.Figure:
    """Kafka's log between earliest and latest, and the checkpoint's offset falling out of it."""
    fig, ax = _canvas(12, 4.4, "Retention's race: a checkpoint older than Kafka's earliest offset")
    _box(ax, 0.5, 2.4, 4.0, 0.8, "deleted by retention", face="#fde2e2", edge=_DANGER)
    _box(ax, 4.5, 2.4, 7.0, 0.8, "what Kafka still holds: [earliest, latest)", face=_PALE)
    for x, label in ((4.5, "earliest"), (11.5, "latest")):
        ax.text(x, 3.35, label, ha="center", fontsize=10, color=_INK)
    ax.plot([1.0, 1.0], [2.2, 3.4], color=_DANGER, linewidth=2.5)
    ax.text(
        1.0,
        1.95,
        "checkpoint's offset\n(app down too long)",
        ha="center",
        va="top",
        fontsize=10,
        color=_DANGER,
        weight="bold",
    )
    ax.plot([10.6, 10.6], [2.2, 3.4], color=_ACCENT, linewidth=2.5)
    ax.text(
        10.6,
        1.95,
        "checkpoint's offset\n(app back in time)",
        ha="center",
        va="top",
        fontsize=10,
        color=_ACCENT,
        weight="bold",
    )
    ax.text(
        0.5,
        0.35,
        "Below earliest: the restart fails with KAFKA_DATA_LOSS (failOnDataLoss=true)"
        " or skips the gap with a warning (false). Rule: retention > longest "
        "outage + catch-up.",
        fontsize=10,
        color=_INK,
    )
    return fig


DIAGRAMS: dict[str, Callable[[], plt.Figure]] = {
    "checkpoint-folder.png": checkpoint_folder,
    "batch-life.png": batch_life,
    "retention-race.png": retention_race,
}


def render_all(folder: Path) -> list[Path]:
    """Draw every diagram into `folder`; returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in DIAGRAMS.items():
        fig = draw()
        fig.savefig(folder / name, dpi=110, bbox_inches="tight", metadata={"Software": None})
        plt.close(fig)
        written.append(folder / name)
    return written


if __name__ == "__main__":
    for path in render_all(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img")):
        print(path)
