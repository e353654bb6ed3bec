"""What the demo and `scenarios run` need of the platform to start, watch and stop the apps,
checked before anything starts: a laptop that lacks it gets one line naming what is missing and
what to do, never a traceback halfway through a lesson.

- **/proc**, Linux's process table: a run finds Spark's executors (executor-loss, worker-loss),
  the JVMs' parents and the apps' memory (backlog, slow-checkpoint) there, and the demo finds a
  previous run's apps still going before it starts beside them. macOS has none.
- **termios**, a Unix terminal's modes: the demo's live screen reads single keys with it.
  Windows' own Python has none; WSL2 has both.

Usage:
    require("python -m scenarios demo", demo_needs(interactive=True))  # raises PlatformMissing
    lacking(RUN_NEEDS)                                                  # [] on Linux
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from launch.errors import LaunchError

__all__ = [
    "Need",
    "PlatformMissing",
    "RUN_NEEDS",
    "demo_needs",
    "lacking",
    "require",
    "WHERE_TO_RUN",
]

PROC = Path("/proc")
# Read through here, so a test can fake the platform's name without faking it for the imports
# that consult sys.platform (sysconfig's, pandas's).
PLATFORM = sys.platform
WHERE_TO_RUN = "run it on Linux, or in WSL2 on Windows (README.md, Quick start)"


class PlatformMissing(LaunchError):
    """The platform lacks something a command needs (see the module's docstring)."""


@dataclass(frozen=True)
class Need:
    """One thing of the platform a command needs, why, and how to tell it is there."""

    name: str
    why: str
    present: Callable[[], bool]


def _has_proc() -> bool:
    # PROC is read at call time, so a test can point it at a folder that is not there.
    return (PROC / "self").is_dir()


def _has_termios() -> bool:
    return importlib.util.find_spec("termios") is not None


_PROC_FOR_RUN = Need(
    "/proc",
    "Linux's process table, where the scenarios find Spark's executors, the JVMs' parents "
    "and the apps' memory",
    _has_proc,
)
RUN_NEEDS: tuple[Need, ...] = (_PROC_FOR_RUN,)
_PROC_FOR_DEMO = Need(
    "/proc",
    "Linux's process table, where the demo finds a previous run's apps still going before "
    "it starts beside them",
    _has_proc,
)
_TERMIOS = Need(
    "termios", "a Unix terminal's modes, for the live screen's single keys", _has_termios
)


def demo_needs(interactive: bool) -> tuple[Need, ...]:
    """The demo's needs: termios only for the live screen (the plain line mode reads lines)."""
    return (_PROC_FOR_DEMO, _TERMIOS) if interactive else (_PROC_FOR_DEMO,)


def lacking(needs: Sequence[Need]) -> list[Need]:
    """The needs this platform does not meet."""
    return [need for need in needs if not need.present()]


def require(command: str, needs: Sequence[Need]) -> None:
    """Raise PlatformMissing, one line naming what is missing, if the platform lacks any."""
    missing = lacking(needs)
    if missing:
        named = " and ".join(f"{need.name} ({need.why})" for need in missing)
        raise PlatformMissing(
            f"{command} needs {named}, which this platform ({PLATFORM}) does not have: "
            f"{WHERE_TO_RUN}"
        )
