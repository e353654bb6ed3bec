"""The output log's whole history in an exercise's folder, whatever the attendee did to the log.

The setup keeps a copy of the output log as it left it. What the attendee's runs add goes after
it in the same file, unless they moved the log aside (`python -m spark_app reset` does, to
start clean): then the current log holds their runs only. Either way the history is the kept
copy followed by what came after it, so the checker sees a reset as what it is, a count that
starts over at 1, and values written before and after it as one record.

Usage:
    keep_output(ws)                   # at the end of the setup
    report = output_history(ws)       # in --check: verify() over the kept copy and what followed
"""

from __future__ import annotations

import shutil
from pathlib import Path

from scenarios.checker.verify import VerifyReport, verify
from scenarios.exercises.workspace import Workspace

__all__ = ["keep_output", "output_history", "history_lines", "kept_output", "new_lines"]


def kept_output(ws: Workspace) -> Path:
    return ws.kept / "output-before.log"


def keep_output(ws: Workspace) -> None:
    """Copy the output log as the setup leaves it (an empty one if it wrote none)."""
    ws.kept.mkdir(parents=True, exist_ok=True)
    if ws.output_log.is_file():
        shutil.copyfile(ws.output_log, kept_output(ws))
    else:
        kept_output(ws).write_text("")


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def new_lines(ws: Workspace) -> list[str]:
    """What the attendee's runs wrote after the setup."""
    before, now = _read(kept_output(ws)), _read(ws.output_log)
    return (now[len(before) :] if now.startswith(before) else now).splitlines()


def history_lines(ws: Workspace) -> list[str]:
    """The kept copy's lines, then the lines written after it."""
    return _read(kept_output(ws)).splitlines() + new_lines(ws)


def output_history(ws: Workspace) -> VerifyReport:
    return verify(history_lines(ws))
