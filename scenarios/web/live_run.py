"""`scenarios run --web`: the live page around a run, and what the run layer needs from it; and
`live_room`, the same for an exercise's or the puzzle's first terminal.

`live_run` starts the page's server before the first scenario and stops it after the last,
however the run ends (Ctrl-C included), and yields what the command line hands on: the stage
listeners (the page, and with `--guided` the step gate) and the narrator's `ask` (the gate's
wait for Enter or the page's step). Without `--web` it yields nothing to add and `input`, and
imports neither aiohttp nor the page.

Usage:
    with live_run(web_choice(args), scenarios, guided=args.guided) as web:
        narrator = Narrator(guided=args.guided, ask=web.ask)
        run_scenarios(scenarios, settings, narrator, listeners=web.listeners)
    with live_room(web_choice(args), puzzle_brief(7)) as page:
        with room("puzzle", ws, settings, say, quiet=True, listeners=page.listeners) as stage:
            ...; page.handed_over(story_lines(ws, setup))
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from scenarios.engine.events import Listener
from scenarios.engine.scenario import Scenario
from scenarios.errors import ScenarioError
from scenarios.web.options import WebChoice

if TYPE_CHECKING:  # aiohttp, and the exercises, only when a page is asked for
    from scenarios.web.room_brief import RoomBrief
    from scenarios.web.server import LiveServer, Stepper

__all__ = ["LiveRoom", "LiveRun", "live_room", "live_run", "serving"]


@dataclass(frozen=True)
class LiveRun:
    """What a run takes from its live page: listeners for each stage, and the narrator's ask."""

    listeners: tuple[Listener, ...] = ()
    ask: Callable[[str], str] = input


@contextmanager
def live_run(
    choice: WebChoice | None,
    scenarios: Sequence[Scenario],
    guided: bool = False,
    out: TextIO | None = None,
) -> Iterator[LiveRun]:
    """The page's server for the length of the run; a ScenarioError when it cannot serve."""
    if choice is None:
        yield LiveRun()
        return
    # Here, not at the top: aiohttp and the page only when asked for.
    from scenarios.web.run_page import RunPage
    from scenarios.web.stepping import StepGate

    out = out if out is not None else sys.stdout
    gate = StepGate() if guided else None
    with serving(choice, "scenarios run", out, stepper=gate) as server:
        page = RunPage(server, list(scenarios), guided=guided)
        if gate is not None:
            gate.on_wait = page.waiting
        with page:
            if gate is None:
                yield LiveRun(listeners=(page.hear,))
            else:
                yield LiveRun(listeners=(page.hear, gate.hear), ask=gate.ask)


def _no_task(task: Sequence[str]) -> None:
    """Without --web there is no page to hand the task to."""


@dataclass(frozen=True)
class LiveRoom:
    """What an exercise's or the puzzle's first terminal takes from its page: the stage's
    listeners, and where to hand the task (or the story) once the setup is done."""

    listeners: tuple[Listener, ...] = ()
    handed_over: Callable[[Sequence[str]], None] = _no_task


@contextmanager
def live_room(
    choice: WebChoice | None, brief: RoomBrief, out: TextIO | None = None
) -> Iterator[LiveRoom]:
    """The page of an exercise or the puzzle (scenarios/web/room_page.py) for as long as its
    first terminal holds Kafka; without --web, nothing to add and no aiohttp."""
    if choice is None:
        yield LiveRoom()
        return
    from scenarios.web.room_page import RoomPage

    out = out if out is not None else sys.stdout
    with (
        serving(choice, f"scenarios {brief.title}", out) as server,
        RoomPage(server, brief) as page,
    ):
        yield LiveRoom(listeners=(page.hear,), handed_over=page.handed_over)


@contextmanager
def serving(
    choice: WebChoice, title: str, out: TextIO, stepper: Stepper | None = None
) -> Iterator[LiveServer]:
    """A started server, its addresses printed (with a stepper, the one that steps) and the
    warning when it is open to the network, stopped when the block ends however it ends; a
    ScenarioError when it cannot serve. `run --web` and the rooms' pages (room_page.py)."""
    from scenarios.web.server import LiveServer, WebServerError

    server = LiveServer(choice, title, stepper=stepper)
    try:
        server.start()
    except WebServerError as error:
        raise ScenarioError(str(error)) from error
    try:
        print(f"live page: {server.url}", file=out, flush=True)
        if stepper is not None:
            print(
                f"live page that runs the steps (this machine only): {server.step_url}",
                file=out,
                flush=True,
            )
        if (warning := choice.warning()) is not None:
            print(warning, file=out, flush=True)
        yield server
    finally:
        server.stop()
