"""Progress of a fetch: jars and bytes appearing in Ivy's download cache, polled.

On a terminal a rich status line updates in place; off a terminal (CI, logs) a plain line is
printed every few seconds. Both go to stderr, so a command's stdout stays its own.

Usage:
    with FetchProgress("kafka-4.1.2", ivy_cache, enabled=True) as progress:
        run_ivy(..., on_poll=progress.poll)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import TracebackType
from typing import TextIO

__all__ = ["FetchProgress"]

_PLAIN_EVERY_SEC = 5.0


class FetchProgress:
    """Counts the jars downloaded since it started; shows them while the fetch runs."""

    def __init__(
        self, name: str, watch: Path, *, enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        self.name, self.watch, self.enabled = name, watch, enabled
        self.stream = stream or sys.stderr
        self._before = self._jars()
        self._poms_before = self._count_poms()
        self._start = time.monotonic()
        self._next_plain = self._start + _PLAIN_EVERY_SEC
        self._live: object | None = None
        self.jars, self.bytes, self.poms = 0, 0, 0

    def __enter__(self) -> FetchProgress:
        if not self.enabled:
            return self
        if self.stream.isatty():
            from rich.console import Console
            from rich.status import Status

            self._live = Status(self._text(), console=Console(file=self.stream))
            self._live.start()  # type: ignore[attr-defined]
        else:
            print(
                f"fetching {self.name} (once; later runs use the cache)",
                file=self.stream,
                flush=True,
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.enabled:
            return
        if self._live is not None:
            self._live.stop()  # type: ignore[attr-defined]
        if exc_type is None:
            self.poll()
            print(
                f"fetched {self.name}: {self.jars} new jar(s), {self.bytes / 1e6:.1f} MB "
                f"in {time.monotonic() - self._start:.0f} s",
                file=self.stream,
                flush=True,
            )

    def poll(self) -> None:
        """Count what arrived and refresh the display (cheap: a walk of a few hundred files)."""
        new = self._jars() - self._before
        # Ivy reads every POM before the first jar: count those, or the first 15 s show nothing.
        self.poms = self._count_poms() - self._poms_before
        self.jars = len(new)
        self.bytes = sum(_size(path) for path in new)
        if not self.enabled:
            return
        if self._live is not None:
            self._live.update(self._text())  # type: ignore[attr-defined]
        elif time.monotonic() >= self._next_plain:
            self._next_plain += _PLAIN_EVERY_SEC
            print(self._text(), file=self.stream, flush=True)

    def _text(self) -> str:
        return (
            f"fetching {self.name}: {self.poms} POM(s) read, {self.jars} jar(s), "
            f"{self.bytes / 1e6:.1f} MB, "
            f"{time.monotonic() - self._start:.0f} s"
        )

    def _count_poms(self) -> int:
        return sum(1 for _ in self.watch.rglob("*.pom")) if self.watch.is_dir() else 0

    def _jars(self) -> set[Path]:
        return set(self.watch.rglob("*.jar")) if self.watch.is_dir() else set()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # Ivy renames its part files as it goes
