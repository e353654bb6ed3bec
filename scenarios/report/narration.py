"""The voice of a scenario: every step asks a question before it runs and answers it after.

A step is told in two halves, so a learner can predict before looking. When it begins: its
title, what happens and the question. Then it runs, with its remarks and checks. When the next
step begins (or the scenario ends): the answer, what to watch, why, and what to do in
production. On a terminal the halves are rich panels; otherwise (CI logs, pipes) plain prefixed
lines in the same order, and nothing waits. On a terminal `--guided` waits for Enter after the
question, and `--projector SECONDS` waits that long instead, for a trainer who talks over it.
Everything said is also kept as plain data (`Narrator.narration`), so the HTML report can show
the steps with their sections, the remarks and the checks as they ran.

It is one of the stage's listeners (scenarios/engine/events.py): `hear` takes what the stage
tells, and the methods below show it.

Usage:
    narrator = Narrator(guided=False)
    stage = Stage("chaos", settings, root, listeners=[narrator.hear])   # or, by hand:
    narrator.step(Step("Kill the Spark app", happens="kill -9 …", question="…", answer="…",
                       watch="…", why="…", production="…"))
    narrator.say("value 42 reached")
    narrator.end_step()  # the answer, why and production of the last step
    narrator.narration  # [{"kind": "step", "at": 0.1, "title": "Step 1: Kill…", "sections": …}, …]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from scenarios.engine.events import (
    Checked,
    Event,
    Said,
    StageClosed,
    StageOpened,
    StepEnded,
    StepStarted,
    Waiting,
)
from scenarios.engine.step import Step
from scenarios.report.live_tail import LiveTail

__all__ = ["WAITING", "Narrator"]

# How a wait's progress starts; the HTML report folds a wait's remarks into its last one.
WAITING = "still waiting for "


@dataclass
class Narrator:
    """Prints steps and remarks; remembers them for the report."""

    guided: bool = False
    # Seconds to leave a question on screen before the step runs (a projector, no Enter); 0: none.
    projector_sec: float = 0.0
    stream: TextIO = field(default_factory=lambda: sys.stdout)
    rich: bool | None = None  # None: rich when `stream` is a terminal; off one nothing waits
    ask: Callable[[str], str] = input
    pause: Callable[[float], None] = time.sleep
    scenario: str = ""
    transcript: list[str] = field(default_factory=list)
    # Since the last begin(): {"kind": "step", "at", "title", "sections": [[label, text], …]},
    # {"kind": "say", "at", "text"} and {"kind": "check", "at", "name", "held", "detail"};
    # `at` is seconds since begin(). Plain data: it goes into the JSON report as it is.
    narration: list[dict[str, Any]] = field(default_factory=list)
    _step_number: int = 0
    _started: float = field(default_factory=time.monotonic)
    _unanswered: tuple[str, Step] | None = None  # the step whose answer is still to be shown
    # The processes' console folder of the scenario running: shown live during a step.
    _following: Path | None = None
    _live: Live | None = None

    def __post_init__(self) -> None:
        if self.rich is None:
            self.rich = self.stream.isatty()
        self._console = Console(
            file=self.stream, force_terminal=self.rich, highlight=False, soft_wrap=not self.rich
        )

    def hear(self, event: Event) -> None:
        """What the stage tells (scenarios/engine/events.py), shown as it happens."""
        if isinstance(event, StepStarted):
            self.step(event.step)
        elif isinstance(event, StepEnded):
            self.end_step()
        elif isinstance(event, Said):
            self.say(event.text)
        elif isinstance(event, Waiting):
            self.waiting(event.what, event.elapsed)
        elif isinstance(event, Checked):
            self.check(event.check.name, event.check.held, event.check.detail)
        elif isinstance(event, StageOpened):
            self.follow(event.processes)
        elif isinstance(event, StageClosed):
            self.end_step()
            self.follow(None)

    def begin(self, scenario: str, about: str) -> None:
        """A scenario starts: what it is about, never what happens (that is its steps' to show)."""
        self.end_step()
        self.scenario, self._step_number = scenario, 0
        self._started = time.monotonic()
        self.narration.clear()
        self.transcript.append(f"== {scenario}: {about}")
        if self.rich:
            self._console.rule(f"[bold]{scenario}[/]: {about}")
        else:
            self._plain(f"== {scenario}: {about}")

    def conclude(self, lesson: str, summary: str) -> None:
        """A scenario ended: what it showed, after its last answer."""
        self.end_step()
        self.transcript.append(f"   What it showed: {lesson}")
        if self.rich:
            self._console.print(Text.assemble(("What it showed: ", "bold"), lesson))
            if summary:
                self._console.print(Text(summary, style="dim"))
        else:
            self._plain(f"   What it showed: {lesson}")
            if summary:
                self._plain(f"   {summary}")

    def step(self, step: Step) -> None:
        """Answer the step before; ask this one's question (and wait, when guided); then say
        what happens and what to watch while it runs, with the processes' lines live."""
        self.end_step()
        self._step_number += 1
        heading = f"Step {self._step_number}: {step.title}"
        self.transcript.append(heading)
        self._show(heading, step.asked())
        self._wait()
        # After the pause: the time a step is shown is when the trainer moved on to it.
        self._record("step", title=heading, sections=[list(s) for s in step.sections()])
        self._lines(step.running())
        self._unanswered = (heading, step)
        self._start_live()

    def follow(self, folder: Path | None) -> None:
        """Show the latest lines of the logs in `folder` while steps run (None: stop)."""
        self._stop_live()
        self._following = folder

    def _start_live(self) -> None:
        # On a terminal only: off one the lines stay in their files, and nothing is redrawn.
        if self.rich and self._following is not None and self._live is None:
            self._live = Live(
                LiveTail(self._following),
                console=self._console,
                refresh_per_second=2,
                transient=True,
            )
            self._live.start()

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def end_step(self) -> None:
        """Show the last step's answer, why and production; its checks are on screen by now."""
        self._stop_live()
        if self._unanswered is None:
            return
        heading, step = self._unanswered
        self._unanswered = None
        if step.revealed():
            self._show(f"{heading}: the answer", step.revealed())

    def _wait(self) -> None:
        """On a terminal only: Enter when guided, a few seconds with a projector."""
        if not self.rich:
            return
        if self.guided:
            try:
                self.ask(f"[{self.scenario}] think about it, then press Enter to run it ")
            except EOFError:  # stdin closed or not a terminal: carry on unattended
                self.guided = False
        elif self.projector_sec > 0:
            self._console.print(
                f"  [dim]think about it: the step runs in {self.projector_sec:g} s[/]"
            )
            self.pause(self.projector_sec)

    def _lines(self, sections: list[tuple[str, str]]) -> None:
        """Sections without a frame (what happens, what to watch): fewer rows than a panel, so
        the live lines below them stay on a laptop's screen."""
        for label, text in sections:
            self.transcript.append(f"   {label}: {text}")
            if self.rich:
                self._console.print(Text.assemble((f"{label}: ", "bold cyan"), text))
            else:
                self._plain(f"   {label}: {text}")

    def _show(self, heading: str, sections: list[tuple[str, str]]) -> None:
        if self.rich:
            body = Text()
            for label, text in sections:
                body.append(f"{label}: ", style="bold cyan")
                body.append(text + "\n")
            body.rstrip()  # in place: rich's Text.rstrip() returns None
            self._console.print(Panel(body, title=heading, title_align="left"))
            return
        self._plain(f"-- {heading}")
        for label, text in sections:
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
        """Progress of a long wait (see launch.waiting.Progress)."""
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
