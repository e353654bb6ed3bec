"""`scenarios run --web`: the live page around a run, and what the run layer needs from it.

`live_run` starts the page's server before the first scenario and stops it after the last,
however the run ends (Ctrl-C included), and yields what the command line hands on: the stage
listeners (the page, and with `--guided` the step gate) and the narrator's `ask` (the gate's
wait for Enter or the page's step). Without `--web` it yields nothing to add and `input`, and
imports neither aiohttp nor the page.

Usage:
    with live_run(web_choice(args), scenarios, guided=args.guided) as web:
        narrator = Narrator(guided=args.guided, ask=web.ask)
        run_scenarios(scenarios, settings, narrator, listeners=web.listeners)
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from scenarios.engine.events import Listener
from scenarios.engine.scenario import Scenario
from scenarios.errors import ScenarioError
from scenarios.web.options import WebChoice

__all__ = ["LiveRun", "live_run"]


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
    from scenarios.web.server import LiveServer, WebServerError
    from scenarios.web.stepping import StepGate

    out = out if out is not None else sys.stdout
    gate = StepGate() if guided else None
    server = LiveServer(choice, "scenarios run", stepper=gate)
    try:
        server.start()
    except WebServerError as error:
        raise ScenarioError(str(error)) from error
    page = RunPage(server, list(scenarios), guided=guided)
    try:
        print(f"live page: {server.url}", file=out, flush=True)
        if gate is not None:
            gate.on_wait = page.waiting
            print(
                f"live page that runs the steps (this machine only): {server.step_url}",
                file=out,
                flush=True,
            )
        if (warning := choice.warning()) is not None:
            print(warning, file=out, flush=True)
        with page:
            if gate is None:
                yield LiveRun(listeners=(page.hear,))
            else:
                yield LiveRun(listeners=(page.hear, gate.hear), ask=gate.ask)
    finally:
        server.stop()
