"""What the producer shows: a banner at start, then one line per message.

On a terminal it uses rich (a framed banner, negative keys in red); when stdout is a pipe or
a file it prints the same text as plain lines, flushed at once, so scenarios and tests can
read them as they come.

Usage:
    console = ProducerConsole.for_stdout()
    console.banner("Kafka app", [("bootstrap", "127.0.0.1:9092")], "Press Enter ...")
    console.message("Experience [0:1]: 1 -> 1", negative=False)
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

__all__ = ["ProducerConsole", "banner_panel", "banner_text", "message_text"]


def banner_text(title: str, rows: Sequence[tuple[str, str]], hint: str) -> str:
    """The banner as plain lines."""
    width = max(len(name) for name, _ in rows)
    lines = [title, *(f"  {name.ljust(width)}  {value}" for name, value in rows), hint]
    return "\n".join(lines)


def banner_panel(title: str, rows: Sequence[tuple[str, str]], hint: str) -> Panel:
    """The banner as a rich renderable."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold cyan")
    table.add_column()
    for name, value in rows:
        table.add_row(name, value)
    table.add_row("", "")
    table.add_row("", Text(hint, style="bold yellow"))
    return Panel(table, title=title, expand=False)


def message_text(line: str, negative: bool) -> Text:
    """One message line; a negative key is red, since it will crash the Spark app."""
    return Text(line, style="bold red" if negative else "")


class ProducerConsole:
    """Prints the banner and message lines, with rich or as plain text."""

    def __init__(self, out: TextIO, rich_output: bool) -> None:
        self._out = out
        self._rich = Console(file=out, highlight=False) if rich_output else None

    @classmethod
    def for_stdout(cls) -> ProducerConsole:
        return cls(sys.stdout, rich_output=sys.stdout.isatty())

    def banner(self, title: str, rows: Sequence[tuple[str, str]], hint: str) -> None:
        if self._rich is not None:
            self._rich.print(banner_panel(title, rows, hint))
        else:
            self._plain(banner_text(title, rows, hint))

    def message(self, line: str, negative: bool) -> None:
        if self._rich is not None:
            self._rich.print(message_text(line, negative))
        else:
            self._plain(line)

    def note(self, text: str) -> None:
        """A remark for the user that is not a message (e.g. stopping)."""
        if self._rich is not None:
            self._rich.print(Text(text, style="dim"))
        else:
            self._plain(text)

    def _plain(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()
