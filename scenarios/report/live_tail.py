"""The processes' latest lines, live under the narration while a step runs (on a terminal only).

The narration's "Watch" names what the producer and the Spark app print (`Experience [0:12]`,
`batch 7: Experience-0 [11, 14)`), but during `scenarios run` each process writes its console
to `<scenario>/processes/<name>.out`, out of sight. On a terminal the narrator shows the last
lines of the processes that spoke most recently below its panels, redrawn twice a second and
gone when the step's answer comes; off a terminal nothing changes (the lines stay in the files,
which the run's first line names).

Usage:
    tail = LiveTail(stage_folder / "processes")
    console.print(tail)            # a rich renderable: one titled block per process
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

__all__ = ["LiveTail", "last_lines"]

# Enough to read a batch line and the producer's offsets without pushing the narration away.
PROCESSES = 3
LINES = 3
_TAIL_BYTES = 8192


def last_lines(path: Path, count: int = LINES) -> list[str]:
    """The file's last `count` non-empty lines (read from its end: logs grow long)."""
    try:
        with path.open("rb") as file:
            file.seek(0, 2)
            size = file.tell()
            file.seek(max(0, size - _TAIL_BYTES))
            text = file.read().decode("utf-8", errors="replace")
    except OSError:
        return []  # gone meanwhile, or not readable: nothing to show
    return [line for line in text.splitlines() if line.strip()][-count:]


@dataclass
class LiveTail:
    """What the processes in `folder` said last: the `PROCESSES` most recently written logs."""

    folder: Path

    def _recent(self) -> list[Path]:
        try:
            # Every file there is a process's console (`<name>.out`, processes.CONSOLE_SUFFIX).
            logs = [p for p in self.folder.iterdir() if p.is_file() and p.stat().st_size > 0]
        except OSError:
            return []
        return sorted(logs, key=lambda p: p.stat().st_mtime, reverse=True)[:PROCESSES]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        blocks: list[Text] = []
        for log in sorted(self._recent()):
            block = Text(f"{log.stem}  ", style="bold dim")
            for line in last_lines(log):
                block.append(f"\n  {line}", style="dim")
            block.no_wrap, block.overflow = True, "ellipsis"  # a Java trace is one line here
            blocks.append(block)
        yield Group(*blocks) if blocks else Text("")
