"""The first terminal of an exercise or the puzzle: the setup runs, then Kafka and the producer stay.

As the demo keeps both apps in its terminal, an exercise keeps Kafka and the producer in the
one it was started in: a Stage (scenarios/engine/stage/) on the exercise's folder starts them
through launch/, the setup builds the situation with it, the task is printed, and the terminal
holds them until Ctrl-C (or SIGTERM, or a closed terminal), when every process it started is
stopped. The attendee works in a second terminal. The folder stays for `--check`.

The timings are `--fast`'s (retention ages out in seconds, a message every half second), so a
setup takes about a minute; retention is endless unless a setup shortens it.

Usage:
    with room("exercise skipped-range", ws, settings, say) as stage:
        facts = setup(stage)
        ...print the task...
        hold(stage, say)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from launch.leftovers import describe_leftovers, find_leftovers
from scenarios.engine.events import Event, Listener, Said, Waiting
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import Stack
from scenarios.engine.stage import Stage
from scenarios.exercises.errors import StillRunning
from scenarios.exercises.workspace import Workspace

__all__ = ["STATUS_EVERY_SEC", "hold", "room", "room_settings"]

STATUS_EVERY_SEC = 60.0
# A wait is said again after this long, so the setup's terminal shows it is alive.
_WAIT_SAID_EVERY_SEC = 10.0


def room_settings(stack: Stack) -> RunSettings:
    """`--fast`'s timings on the chosen stack; Kafka is the room's own (never a shared one)."""
    return stack.applied_to(RunSettings(timings=Timings.fast(), fast=True, share_kafka=False))


class _Printer:
    """The Stage's remarks and long waits, one line each, for the exercise's terminal; when
    `quiet` (the puzzle, whose setup must not tell its fault), only that it is still going."""

    def __init__(self, say: Callable[[str], None], quiet: bool) -> None:
        self._say, self._quiet = say, quiet
        self._last_wait = 0.0

    def hear(self, event: Event) -> None:
        if isinstance(event, Said) and not self._quiet:
            self._say(event.text)
        elif (
            isinstance(event, Waiting)
            and time.monotonic() - self._last_wait >= _WAIT_SAID_EVERY_SEC
        ):
            self._last_wait = time.monotonic()
            what = f"{event.what} ({event.elapsed:.0f} s)"
            self._say("still setting up" if self._quiet else f"waiting for {what}")


@contextmanager
def room(
    name: str,
    ws: Workspace,
    settings: RunSettings,
    say: Callable[[str], None],
    quiet: bool = False,
    listeners: Sequence[Listener] = (),
) -> Iterator[Stage]:
    """A Stage on the folder, emptied first; refused while an earlier terminal of the same
    exercise, or the attendee's job, still uses it. `listeners` hear the stage after the
    terminal's printer (the live page of `--web`)."""
    found = find_leftovers([ws.log, ws.checkpoints], [])
    if found:
        raise StillRunning(
            f"{ws.root}/ is still in use: {describe_leftovers(found)}; stop that first "
            "(Ctrl-C in its terminal)"
        )
    with Stage(
        name, settings, ws.root.resolve(), listeners=[_Printer(say, quiet).hear, *listeners]
    ) as stage:
        yield stage


def hold(stage: Stage, say: Callable[[str], None], every: float = STATUS_EVERY_SEC) -> None:
    """Keep Kafka and the producer running until Ctrl-C, with a line on the topic now and
    then; returns early, saying so, if the producer dies."""
    next_status = time.monotonic() + every
    while stage.kafka.producer_running:
        time.sleep(0.5)
        if time.monotonic() >= next_status:
            next_status += every
            window = stage.kafka.window()
            say(
                f"Kafka at {stage.kafka.bootstrap_servers} holds offsets "
                f"{window.earliest}:{window.latest} of {stage.kafka.topic}; Ctrl-C ends it"
            )
    say(
        "the producer stopped; its console is in "
        f"{stage.folders.processes}: start the exercise again"
    )
