"""What the live page shows, as plain data, and the HTML it becomes.

A `LiveView` is built from the demo's state (demo_page.py) or a run's stage (run_page.py) and
rendered by one Jinja template into the fragment the page swaps in on each update. Everything
the page says is decided here, in Python, so a test reads it without a browser: the app's
status with its sign and word, each partition's bar, the batches with their commits, the state
version a restart loads, the verdict, a step's question or answer.

Colour is never the only sign: every status has a symbol and a word, a planned batch without
its commit is dashed and says so, the deleted part of a partition is hatched and labelled.

Usage:
    html = render_fragment(LiveView(title="demo", app=AppView("running", 0), …))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from scenarios.demo.state import BatchView, StateView, Verdict

__all__ = [
    "APP_SIGNS",
    "AppView",
    "LiveView",
    "PartitionView",
    "StepView",
    "render_fragment",
    "render_page",
]

TEMPLATES = Path(__file__).parent / "templates"

# The app's status: (symbol, word) shown together, so no one needs the colour.
APP_SIGNS: dict[str, tuple[str, str]] = {
    "starting": ("…", "STARTING"),
    "running": ("▶", "RUNNING"),
    "restarting": ("↻", "RESTARTING"),
    "stopping": ("■", "STOPPING"),
    "stopped": ("■", "STOPPED"),
    "killed": ("✖", "KILLED"),
    "crashed": ("⚡", "CRASHED"),
    "failed": ("✘", "FAILED"),
    "not started": ("○", "NOT STARTED"),
}


@dataclass(frozen=True)
class PartitionView:
    """One partition of the topic: what Kafka keeps, and where the checkpoint stands in it."""

    name: str
    earliest: int
    latest: int
    checkpoint: int | None = None  # where a restart resumes reading, when known

    @property
    def deleted_pct(self) -> float:
        """The share of the bar retention has deleted, [0, earliest) of [0, latest)."""
        return 100.0 * self.earliest / self.latest if self.latest else 0.0

    @property
    def checkpoint_pct(self) -> float | None:
        if self.checkpoint is None:
            return None
        return 100.0 * min(self.checkpoint, self.latest) / self.latest if self.latest else 0.0

    @property
    def label_before_mark(self) -> bool:
        """Whether the mark's label goes to its left: past the middle, a label to its right ran
        off the bar's end into the next panel (seen at 1280x720, a checkpoint 1 behind)."""
        pct = self.checkpoint_pct
        return pct is not None and pct > 50.0

    @property
    def aged_out(self) -> bool:
        """The checkpoint points at offsets Kafka no longer has: a restart reports data loss."""
        return self.checkpoint is not None and self.checkpoint < self.earliest

    def words(self) -> str:
        kept = f"earliest {self.earliest:,} · latest {self.latest:,} · kept {self.latest - self.earliest:,}"
        if self.checkpoint is None:
            return kept
        if self.aged_out:
            return f"{kept} · checkpoint at {self.checkpoint:,}: AGED OUT, a restart loses data"
        return (
            f"{kept} · checkpoint at {self.checkpoint:,} ({self.latest - self.checkpoint:,} behind)"
        )


@dataclass(frozen=True)
class AppView:
    """The Spark app: its status (a key of APP_SIGNS), restarts, last line, error class."""

    status: str
    restarts: int = 0
    detail: str = ""  # what the status means here: "kill -9 sent", "exit code 255"
    last_line: str = ""
    error_class: str | None = None

    @property
    def sign(self) -> str:
        return APP_SIGNS.get(self.status, ("?", self.status.upper()))[0]

    @property
    def word(self) -> str:
        return APP_SIGNS.get(self.status, ("?", self.status.upper()))[1]


@dataclass(frozen=True)
class StepView:
    """A scenario's current step: asked (its question, before it runs), running, or answered."""

    number: int
    title: str
    phase: str  # "asked" | "running" | "answered"
    question: str = ""
    happens: str = ""
    answer: str = ""
    why: str = ""
    checks: tuple[tuple[str, bool], ...] = ()
    # The step waits for Enter (--guided): the page offers to run it, with the token.
    waiting: bool = False
    # The step before, answered: a stage starts the next step as soon as one ends, so without
    # it an answer would be on the page for a few milliseconds (a guided run then waits on the
    # next question while the terminal still shows the answer above it).
    before: StepView | None = None


@dataclass(frozen=True)
class LiveView:
    """Everything one frame of the page shows."""

    title: str
    app: AppView
    verdict: Verdict
    subtitle: str = ""
    partitions: tuple[PartitionView, ...] = ()
    retention: str = ""
    checkpoint: str = ""
    batches: tuple[BatchView, ...] = ()
    state: StateView | None = None
    step: StepView | None = None
    picture: str = ""  # the timeline's SVG (scenarios/report/timeline.py)
    events: tuple[str, ...] = ()
    hint: str = ""
    notes: tuple[str, ...] = ()
    # Batches seen planned without their commit while the app was down, and committed since:
    # the restart replayed them.
    replayed: frozenset[int] = frozenset()
    # An exercise's task or the puzzle's story, under its heading (scenarios/web/room_page.py).
    task_heading: str = ""
    task: tuple[str, ...] = ()
    # Why Kafka's offsets, the batches' ranges, the state and the timeline are not shown: an
    # exercise whose answer they hold, or the puzzle, whose fault they would name.
    withheld: str = ""


def render_fragment(view: LiveView) -> str:
    """The page's live part: what the server sends on each change."""
    return str(_template("live.html").render(v=view, verdict=_verdict(view.verdict)))


def render_page(fragment: str, title: str) -> str:
    """The whole page around a fragment: what a browser loads first, whole without script."""
    return str(_template("page.html").render(fragment=fragment, title=title))


def _verdict(verdict: Verdict) -> dict[str, str]:
    if verdict.ok is None:
        return {"cls": "waiting", "sign": "…", "word": "WAITING", "text": verdict.headline}
    if verdict.ok:
        return {"cls": "ok", "sign": "✔", "word": "OK", "text": verdict.headline}
    return {"cls": "bad", "sign": "✘", "word": "NOT OK", "text": verdict.headline}


@cache
def _environment() -> Environment:
    # Autoescape: lines from the apps and the scenarios' words are arbitrary text.
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _template(name: str) -> Any:
    return _environment().get_template(name)
