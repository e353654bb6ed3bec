"""The Enter of `--guided`, from the terminal or from the live page, whichever comes first.

A guided run's narrator asks its question, then waits for Enter (`Narrator.ask`). With `--web`
that wait is this gate's: it prints the same prompt, and the step runs on the first of a line
on the terminal or the page's "Run step N" (a POST the server takes from this machine only,
with the token the terminal printed). It is also a listener of the stage, so it knows which
step is asked: a page's click on a step that is not the one waiting (a second tab, a double
click) is refused and steps nothing.

Usage:
    gate = StepGate(on_wait=page.waiting)   # or set gate.on_wait later
    narrator = Narrator(guided=True, ask=gate.ask)
    listeners = [page.hear, gate.hear]; LiveServer(choice, title, stepper=gate)
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from scenarios.engine.events import Event, StepStarted

__all__ = ["StepGate"]

# How often the wait looks at the terminal between clicks.
_POLL_SEC = 0.1


class StepGate:
    """Waits for Enter or the page; `release` is the page's side (thread-safe)."""

    def __init__(
        self,
        on_wait: Callable[[int | None], None] = lambda step: None,
        keys: TextIO | None = None,
        out: TextIO | None = None,
    ) -> None:
        self.on_wait = on_wait
        self._keys = keys if keys is not None else sys.stdin
        self._out = out if out is not None else sys.stdout
        self._asked = 0  # the step whose question is on screen
        self._waiting: int | None = None  # the step that waits for Enter, if any
        self._go = threading.Event()
        self._lock = threading.Lock()

    def hear(self, event: Event) -> None:
        if isinstance(event, StepStarted):
            self._asked = event.number

    def ask(self, prompt: str) -> str:
        """The narrator's `ask`: the prompt, then a line from the terminal or the page's step.
        EOFError when the terminal's input ended, as `input` raises it."""
        with self._lock:
            self._waiting, number = self._asked, self._asked
            self._go.clear()
        self._out.write(f"{prompt.rstrip()} (or Run step {number} on the live page) ")
        self._out.flush()
        self.on_wait(number)
        try:
            return self._wait()
        finally:
            with self._lock:
                self._waiting = None
            self.on_wait(None)

    def release(self, step: int) -> str | None:
        """Run `step` if it is the one waiting; else why not, in a few words."""
        with self._lock:
            if self._waiting is None:
                return "no step is waiting: it is running, or the run is over"
            if step != self._waiting:
                return f"step {step} is not the one waiting (step {self._waiting} is)"
            self._go.set()
        return None

    def _wait(self) -> str:
        fd = self._keys.fileno()
        while True:
            if self._go.wait(_POLL_SEC):
                self._out.write("(run from the live page)\n")
                self._out.flush()
                return ""
            ready, _, _ = select.select([fd], [], [], 0)
            if ready:
                data = os.read(fd, 4096)
                if not data:
                    raise EOFError
                return data.decode(errors="replace")
