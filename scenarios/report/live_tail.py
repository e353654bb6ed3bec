"""The processes' latest lines, live under the narration while a step runs (on a terminal only).

The narration's "Watch" names what the producer and the Spark app print (`Experience [0:12]`,
`batch 7: Experience-0 [11, 14)`), but during `scenarios run` each process writes its console
to `<scenario>/processes/<name>.out`, out of sight. On a terminal the narrator shows the last
lines of the processes that spoke most recently below its panels, redrawn twice a second and
gone when the step's answer comes; off a terminal nothing changes (the lines stay in the files,
which the run's first line names).

The Spark app ends a failure with one line, `spark_app: <CONDITION>: <message>`, whose message
may carry the whole Java stack trace flattened into it (11,178 characters for a data loss read
by the connector). The tail shows that line as the app's one error, `<CONDITION>: <what>`, and
never a stack frame: neither the middle of that line (a window on the file's end once began
there and showed `at java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run…`) nor a
trace printed over many lines.

Usage:
    tail = LiveTail(stage_folder / "processes")
    console.print(tail)            # a rich renderable: one titled block per process
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.text import Text

from scenarios.report.last_words import read_last_words, without_trace
from spark_app.errors import error_in_text

__all__ = ["LiveTail", "last_lines", "shown_line"]

# Enough to read a batch line and the producer's offsets without pushing the narration away.
PROCESSES = 3
LINES = 3
_TAIL_BYTES = 8192
# How far back a line's start is looked for: the app's error line with a whole trace is ~11 kB.
_MAX_TAIL_BYTES = 1 << 20
# A line of a Java stack trace printed over many lines: a frame, a cause, an elision.
_FRAME = re.compile(
    r"^\s*(?:at [\w$./<>-]+\(|\.\.\. \d+ (?:more|common frames omitted)|Caused by: |"
    r"Suppressed: |Driver stacktrace:)"
)


def shown_line(line: str) -> str | None:
    """How a console line appears in the tail: the app's error as `<CONDITION>: <what>`, a line
    that ends in a flattened trace without it, a stack frame not at all (None)."""
    if _FRAME.match(line):
        return None
    if error_in_text(line) is not None:
        words = read_last_words(line)
        return f"{words.condition}: {words.what}"
    return without_trace(line) or None


def _shown(text: str) -> list[str]:
    shown = (shown_line(line) for line in text.splitlines() if line.strip())
    return [line for line in shown if line]


def last_lines(path: Path, count: int = LINES) -> list[str]:
    """The file's last `count` lines as the tail shows them (`shown_line`), read from its end
    (logs grow long): the window grows until it holds that many, each from its start, so no
    line is shown from its middle and a trace's frames do not take the error's place."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            window = _TAIL_BYTES
            while True:
                start = max(0, size - window)
                file.seek(start)
                text = file.read().decode("utf-8", errors="replace")
                if start > 0:
                    text = text.partition("\n")[2]  # the window began inside a line
                shown = _shown(text)
                if start == 0 or window >= _MAX_TAIL_BYTES or len(shown) >= count:
                    return shown[-count:]
                window = min(window * 4, _MAX_TAIL_BYTES)
    except OSError:
        return []  # gone meanwhile, or not readable: nothing to show


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
