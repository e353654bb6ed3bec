"""The two faces of the demo: a live full-screen view on a terminal, plain lines otherwise.

Both are thin loops around `DemoSession`: look for input, `tick()`, show the state. The live
one reads single keys in cbreak mode and redraws with rich's `Live`; the plain one reads
commands as lines (`enter` or an empty line, `k`, `s`, `r`, `d`, `t`, `q`) and prints events
as they happen and a status line every few seconds, so it works in a pipe, a log or CI.

Usage:
    with DemoSession(settings) as session:
        run_live(session, Console())      # or run_plain(session, sys.stdin, sys.stdout)
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TextIO

from rich.console import Console
from rich.live import Live

from scenarios.demo.keys import cbreak, command_for_key, command_for_line, read_key
from scenarios.demo.session import DemoSession
from scenarios.demo.view import render, status_line

__all__ = ["run_live", "run_plain", "TICK_SEC"]

TICK_SEC = 0.25  # how often the screen follows the apps; keys are answered at once


def run_live(session: DemoSession, console: Console, keys: TextIO) -> None:
    """Full screen until `q`; the terminal's modes are restored however the loop ends."""
    with (
        cbreak(keys),
        Live(
            render(session.tick()),
            console=console,
            screen=True,
            auto_refresh=False,
            transient=False,
        ) as live,
    ):
        while True:
            key = read_key(keys, timeout=TICK_SEC)
            if key == "":
                return  # the terminal went away; quitting is the only sensible answer
            command = command_for_key(key) if key else None
            if command is not None and not session.handle(command):
                return
            live.update(render(session.tick()), refresh=True)


def _read_lines(stream: TextIO, lines: queue.Queue[str | None]) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)  # end of input


def run_plain(session: DemoSession, commands: TextIO, out: TextIO) -> None:
    """Line mode until `q` (or Ctrl-C / SIGTERM); the end of input does not quit by itself."""
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(
        target=_read_lines, args=(commands, lines), name="demo-stdin", daemon=True
    ).start()
    next_status = 0.0
    while True:
        try:
            line = lines.get(timeout=TICK_SEC)
        except queue.Empty:
            line = ""
            idle = True
        else:
            idle = False
        if line is None:
            print("[demo] input closed; still running, Ctrl-C to quit", file=out, flush=True)
        elif not idle:
            command = command_for_line(line)
            if command is None:
                print(
                    f"[demo] unknown command {line.strip()!r}; use enter, k, s, r, d, t or q",
                    file=out,
                    flush=True,
                )
            elif not session.handle(command):
                return
        state = session.tick()
        now = time.monotonic()
        if now >= next_status:
            next_status = now + session.settings.status_sec
            print(f"[status] {status_line(state)}", file=out, flush=True)
