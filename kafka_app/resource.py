"""The `with` shape every kafka_app resource shares: entering starts it, leaving stops it.

Usage:
    class Reader(StartStop):
        def start(self) -> None: ...   # idempotent
        def stop(self) -> None: ...    # idempotent

    with Reader() as reader:
        ...
"""

from __future__ import annotations

from types import TracebackType
from typing import TypeVar

__all__ = ["StartStop"]

_Resource = TypeVar("_Resource", bound="StartStop")


class StartStop:
    """A context manager over idempotent `start` and `stop`, so a `with` cannot leak the
    thread, process or connection the subclass opens."""

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Resource) -> _Resource:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
