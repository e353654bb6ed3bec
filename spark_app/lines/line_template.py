"""One template per printed line, read both ways: the words with named fields format the line,
and the same words, with a pattern per field, read it back.

A line written and parsed from two separate strings drifts apart when someone rewords one of
them; a line written and parsed from one template cannot.

Usage:
    Restart = NamedTuple("Restart", [("number", int), ("reason", str)])
    RESTART = LineTemplate(Restart, "restart {number}: {reason}", number=r"\\d+", reason=r".*")
    RESTART.read(RESTART.text(Restart(3, "gone")))   # Restart(number=3, reason="gone")
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Generic, TypeVar

__all__ = ["LineTemplate"]

R = TypeVar("R")
_FIELD = re.compile(r"\{(\w+)(?::[^}]*)?\}")


class LineTemplate(Generic[R]):
    """Formats records of type `record` (a NamedTuple) as `template`, and reads them back."""

    def __init__(self, record: Callable[..., R], template: str, **patterns: str) -> None:
        self._record = record
        self._types: dict[str, Any] = dict(getattr(record, "__annotations__", {}))
        self.template = template
        pieces = _FIELD.split(template)  # literal text and field names, alternating
        self._pattern = re.compile(
            "".join(
                re.escape(piece) if index % 2 == 0 else f"(?P<{piece}>{patterns[piece]})"
                for index, piece in enumerate(pieces)
            )
        )

    def text(self, record: R) -> str:
        return self.template.format(**record._asdict())  # type: ignore[attr-defined]

    def read(self, text: str) -> R | None:
        """The record `text` (the whole of it) holds; None for any other text."""
        return self._made(self._pattern.fullmatch(text))

    def find(self, text: str) -> R | None:
        """The first record anywhere in `text`, if any."""
        return self._made(self._pattern.search(text))

    def _made(self, found: re.Match[str] | None) -> R | None:
        if found is None:
            return None
        return self._record(
            **{name: self._types.get(name, str)(value) for name, value in found.groupdict().items()}
        )
