"""The voice of a scenario: every step says what happens, what to watch, why, and what to do.

On a terminal the steps are rich panels; otherwise (CI logs, pipes) plain prefixed lines that
read well in a log file. `--guided` waits for Enter before each step, so a trainer can talk.
Everything said is also kept as plain data (`Narrator.narration`), so the HTML report can show
the steps with their sections, the remarks and the checks as they ran.

Usage:
    narrator = Narrator(guided=False)
    narrator.step(Step("Kill the Spark app", happens="kill -9 …", watch="…", why="…",
                       production="…"))
    narrator.say("value 42 reached")
    narrator.narration  # [{"kind": "step", "at": 0.1, "title": "Step 1: Kill…", "sections": …}, …]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

__all__ = ["WAITING", "Narrator", "Step"]

# How a wait's progress starts; the HTML report folds a wait's remarks into its last one.
WAITING = "still waiting for "


@dataclass(frozen=True)
class Step:
    """One narrated step. `why` is the Spark or Kafka rule behind what you are about to see."""

    title: str
    happens: str
    watch: str = ""
    why: str = ""
    production: str = ""

    def sections(self) -> list[tuple[str, str]]:
        labelled = [("What happens", self.happens), ("Watch", self.watch), ("Why", self.why),
                    ("In production", self.production)]
        return [(label, text) for label, text in labelled if text]


@dataclass
class Narrator:
    """Prints steps and remarks; remembers them for the report."""

    guided: bool = False
    stream: TextIO = field(default_factory=lambda: sys.stdout)
    rich: bool | None = None  # None: rich when `stream` is a terminal
    ask: Callable[[str], str] = input
    scenario: str = ""
    transcript: list[str] = field(default_factory=list)
    # Since the last begin(): {"kind": "step", "at", "title", "sections": [[label, text], …]},
    # {"kind": "say", "at", "text"} and {"kind": "check", "at", "name", "held", "detail"};
    # `at` is seconds since begin(). Plain data: it goes into the JSON report as it is.
    narration: list[dict[str, Any]] = field(default_factory=list)
    _step_number: int = 0
    _started: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        if self.rich is None:
            self.rich = self.stream.isatty()
        self._console = Console(file=self.stream, force_terminal=self.rich,
                                highlight=False, soft_wrap=not self.rich)

    def begin(self, scenario: str, title: str, summary: str) -> None:
        self.scenario, self._step_number = scenario, 0
        self._started = time.monotonic()
        self.narration.clear()
        self.transcript.append(f"== {scenario}: {title}")
        if self.rich:
            self._console.rule(f"[bold]{scenario}[/]: {title}")
            self._console.print(summary)
        else:
            self._plain(f"== {scenario}: {title}")
            self._plain(f"   {summary}")

    def step(self, step: Step) -> None:
        self._step_number += 1
        heading = f"Step {self._step_number}: {step.title}"
        self.transcript.append(heading)
        if self.guided:
            self.ask(f"\n[{self.scenario}] next: {step.title} — press Enter ")
        # After the pause: the time a step is shown is when the trainer moved on to it.
        self._record("step", title=heading, sections=[list(s) for s in step.sections()])
        if self.rich:
            body = Text()
            for label, text in step.sections():
                body.append(f"{label}: ", style="bold cyan")
                body.append(text + "\n")
            body.rstrip()  # in place: rich's Text.rstrip() returns None
            self._console.print(Panel(body, title=heading, title_align="left"))
            return
        self._plain(f"-- {heading}")
        for label, text in step.sections():
            self._plain(f"   {label}: {text}")

    def announce(self, text: str) -> None:
        """A line about the run itself (where its files are), before or between scenarios."""
        if self.rich:
            self._console.print(f"[dim]{text}[/]")
        else:
            self._plain(text)

    def say(self, text: str) -> None:
        """A short remark during a step: something observed, a number, a decision."""
        self.transcript.append(f"   {text}")
        elapsed = self._record("say", text=text)
        if self.rich:
            self._console.print(f"  [dim]{elapsed:6.1f}s[/] {text}")
        else:
            self._plain(f"   [{elapsed:6.1f}s] {text}")

    def waiting(self, what: str, elapsed: float) -> None:
        """Progress of a long wait (see scenarios.engine.waiting.Progress)."""
        self.say(f"{WAITING}{what} ({elapsed:.0f} s)")

    def check(self, name: str, held: bool, detail: str) -> None:
        mark = "PASS" if held else "FAIL"
        self.transcript.append(f"   {mark} {name}: {detail}")
        self._record("check", name=name, held=held, detail=detail)
        if self.rich:
            colour = "green" if held else "red"
            self._console.print(f"  [bold {colour}]{mark}[/] {name}: {detail}")
        else:
            self._plain(f"   {mark} {name}: {detail}")

    def _record(self, kind: str, **entry: Any) -> float:
        """Keep one entry of the narration; returns the seconds since begin()."""
        elapsed = time.monotonic() - self._started
        self.narration.append({"kind": kind, "at": round(elapsed, 1), **entry})
        return elapsed

    def _plain(self, line: str) -> None:
        print(line, file=self.stream, flush=True)
