"""What a changed query made of its checkpoint: continues, refused, or continues but differs.

`check-change OLD.py NEW.py` runs OLD on a fresh checkpoint, stops it, restarts NEW on the same
checkpoint and, if it runs, has the oracle evaluate NEW over every record sent. This turns what
happened into one of three verdicts, as pure code:

- **continues**: NEW ran on OLD's checkpoint, and the rows NEW wrote agree with NEW evaluated
  over everything sent;
- **refused**: NEW's restart failed; Spark's error class and what to do;
- **continues but differs**: the checkpoint took the change, but NEW's rows are not NEW's
  result over everything sent. The keys that differ are named, with the likely cause: a KEY
  renamed or swapped, a setting the checkpoint pinned (NEW asked for another), or state kept
  under an old meaning.

Usage:
    verdict = judge_change(continued=True, comparison=query_verdict, old_key=("b",), new_key=("b",),
                           pinned_changes=[])
    verdict.kind, verdict.line()
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from scenarios.checker.query_results import QueryVerdict

__all__ = [
    "CONTINUES",
    "DIFFERS",
    "REFUSED",
    "ChangeVerdict",
    "PinnedChange",
    "judge_change",
    "refusal",
]

CONTINUES = "continues"
REFUSED = "refused"
DIFFERS = "continues but differs"


@dataclass(frozen=True)
class PinnedChange:
    """A setting the checkpoint pinned (its offset log's conf) that NEW asked to change."""

    name: str
    pinned: str
    asked: str

    def words(self) -> str:
        return f"{self.name}: the checkpoint pinned {self.pinned}, NEW asked for {self.asked}"


@dataclass(frozen=True)
class ChangeVerdict:
    kind: str
    detail: str
    cause: str = ""
    pinned: tuple[PinnedChange, ...] = ()

    @property
    def exit_code(self) -> int:
        """0 for a change a deploy can take, 1 for one it cannot (refused or differs)."""
        return 0 if self.kind == CONTINUES else 1

    def line(self) -> str:
        cause = f"; likely cause: {self.cause}" if self.cause else ""
        return f"{self.kind}: {self.detail}{cause}"


def judge_change(
    *,
    continued: bool,
    refusal: str = "",
    comparison: QueryVerdict | None = None,
    old_key: Sequence[str] = (),
    new_key: Sequence[str] = (),
    pinned_changes: Sequence[PinnedChange] = (),
) -> ChangeVerdict:
    """The verdict on a change, from what its restart did and what the oracle said."""
    pinned = tuple(pinned_changes)
    if not continued:
        return ChangeVerdict(REFUSED, refusal or "the restart failed", pinned=pinned)
    assert comparison is not None, "a restart that continued is judged by the oracle"
    if comparison.ok:
        said = "; ".join(comparison.summary_lines())
        ignored = f"; NEW ignored {', '.join(p.words() for p in pinned)}" if pinned else ""
        return ChangeVerdict(CONTINUES, said + ignored, pinned=pinned)
    return ChangeVerdict(
        DIFFERS,
        "; ".join(comparison.summary_lines()[1:]) or comparison.summary_lines()[0],
        _cause(old_key, new_key, pinned),
        pinned,
    )


def _cause(old_key: Sequence[str], new_key: Sequence[str], pinned: Sequence[PinnedChange]) -> str:
    if list(old_key) != list(new_key):
        return (
            f"a renamed or swapped key (KEY {list(old_key)} became {list(new_key)}): state binds "
            "by position, so the old state is read under the new key"
        )
    if pinned:
        return "a setting the checkpoint pinned: " + "; ".join(p.words() for p in pinned)
    return (
        "state kept under an old meaning: the checkpoint's state was written by OLD, and NEW "
        "reads it as its own (Spark checks the state's types by position, not what they mean)"
    )


# Spark's error classes in brackets (`[STREAM_FAILED]`, `[STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE]`).
_SPARK_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")
_GENERIC = {"STREAM_FAILED", "SPARK_APP_ERROR"}
_ADVICE = {
    "SCHEMA_NOT_COMPATIBLE": "keep the state's schema, or start NEW on a new checkpoint beside "
    "the old one (blue/green, the upgrade scenario)",
    "NOT_MATCH_IN_STATE_METADATA": "a stateful operator was added, removed or moved: start NEW "
    "on a new checkpoint, from the offsets the old one reached (spark_app inspect prints them)",
}


# An error class written without brackets, as the app's own line quotes Spark's.
_BARE_CLASS = re.compile(r"\b((?:STATE_STORE|STREAMING|STATE)_[A-Z0-9_]+(?:\.[A-Z0-9_]+)?)\b")


def refusal(app_line: str, output: str) -> str:
    """NEW's refusal in a line: Spark's most specific error class, what to do, the app's words."""
    found = _SPARK_CLASS.findall(output) + _BARE_CLASS.findall(app_line)
    classes = [c for c in dict.fromkeys(found) if c not in _GENERIC]
    named = next(
        (c for c in reversed(classes) if any(k in c for k in _ADVICE)),
        classes[-1] if classes else "",
    )
    advice = next(
        (a for k, a in _ADVICE.items() if k in named),
        "start NEW on a new checkpoint beside the old one (blue/green, the upgrade scenario)",
    )
    words = _SPARK_CLASS.sub("", app_line).strip()
    head = f"{named}: " if named else ""
    return f"{head}{advice} (the app said: {words[:240]})"
