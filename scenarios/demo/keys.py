"""What the user can ask for, and how keys and lines become those requests.

On a terminal the demo reads single key presses in cbreak mode (no Enter needed, Ctrl-C still
works) and restores the terminal afterwards; in the plain mode it reads whole lines.

Usage:
    with cbreak(sys.stdin):
        key = read_key(sys.stdin, timeout=0.25)
        command = command_for_key(key) if key else None
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator
from contextlib import contextmanager
from enum import Enum
from typing import TextIO

__all__ = ["Command", "command_for_key", "command_for_line", "cbreak", "read_key"]


class Command(Enum):
    """One thing the user asked the demo to do."""

    NEGATIVE_KEY = "enter"
    KILL = "k"
    STOP = "s"
    RESTART = "r"
    DELETE_CHECKPOINT = "d"
    RETENTION = "t"
    QUIT = "q"


_BY_KEY = {
    "\n": Command.NEGATIVE_KEY,
    "\r": Command.NEGATIVE_KEY,
    "k": Command.KILL,
    "s": Command.STOP,
    "r": Command.RESTART,
    "d": Command.DELETE_CHECKPOINT,
    "t": Command.RETENTION,
    "q": Command.QUIT,
}


def command_for_key(key: str) -> Command | None:
    """A single key press; capitals count too, so Caps Lock does not silently ignore keys."""
    return _BY_KEY.get(key if key in ("\n", "\r") else key.lower())


def command_for_line(line: str) -> Command | None:
    """A line in the plain mode: empty or `enter` is a negative key, else the key's letter."""
    word = line.strip().lower()
    if word in ("", "enter"):
        return Command.NEGATIVE_KEY
    return _BY_KEY.get(word) if len(word) == 1 else None


@contextmanager
def cbreak(stream: TextIO) -> Iterator[None]:
    """Single key presses without echo while inside; the terminal is restored on any exit."""
    # Here, not at the top: only the live screen needs a Unix terminal's modes, and the demo
    # checks for them first (launch/platform_needs.py), naming what is missing.
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        # cbreak keeps ICRNL, so Enter arrives as "\n" like in the plain mode.
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def read_key(stream: TextIO, timeout: float) -> str | None:
    """One key press if one arrives within `timeout` seconds, else None; "" once input has ended."""
    fd = stream.fileno()
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return None
    # Read the raw byte: the text wrapper would buffer ahead and hide keys from select.
    data = os.read(fd, 1)
    return data.decode("utf-8", errors="replace")
