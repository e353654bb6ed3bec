"""One finding of the doctor: ok, a warning (it runs, with a caveat) or a problem (it cannot),
as one line that says what to do.

Usage: `print(problem("1 core: give the machine 2 cores").line())`
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Finding", "ok", "warn", "problem"]


@dataclass(frozen=True)
class Finding:
    """One check's outcome: `level` is ok, warning (runs, with a caveat) or problem (cannot)."""

    level: str
    what: str

    def line(self) -> str:
        return f"{_SHOWN[self.level]} {self.what}"


_SHOWN = {"ok": "ok     ", "warning": "warning", "problem": "PROBLEM"}


def ok(what: str) -> Finding:
    return Finding("ok", what)


def warn(what: str) -> Finding:
    return Finding("warning", what)


def problem(what: str) -> Finding:
    return Finding("problem", what)
