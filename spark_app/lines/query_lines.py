"""The line `check-query` prints for a query Spark takes, read back by the scenarios' run.

    queries/window_count.py: runs as a stream in append mode, KEY ['window_start']; its result
    depends on batch boundaries (a watermark in append mode)

(one line, folded here).

The run reads it before any Kafka starts: the module's mode and KEY, and whether its result
depends on where batches begin and end, which decides how the oracle's comparison holds it
(scenarios/checker/query_results.py) and what the run says before it starts.

Usage:
    line = checked_line(QueryChecked("q.py", "append", ("w",), "a watermark in append mode"))
    parse_checked_line(line)   # the same QueryChecked
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

__all__ = ["QueryChecked", "checked_line", "parse_checked_line"]


@dataclass(frozen=True)
class QueryChecked:
    """A query module Spark takes: its file, mode, KEY, and what its result depends on beyond
    the records ("" when nothing: then it must equal the batch result)."""

    path: str
    mode: str
    key: tuple[str, ...]
    depends_on: str = ""


_DEPENDS = "; its result depends on batch boundaries ("


def checked_line(checked: QueryChecked) -> str:
    depends = f"{_DEPENDS}{checked.depends_on})" if checked.depends_on else ""
    return (
        f"{checked.path}: runs as a stream in {checked.mode} mode, KEY {list(checked.key)}{depends}"
    )


_LINE = re.compile(
    r"(?P<path>.+): runs as a stream in (?P<mode>append|update|complete) mode, "
    r"KEY (?P<key>\[[^\]]*\])(?:; its result depends on batch boundaries \((?P<depends>.+)\))?"
)


def parse_checked_line(text: str) -> QueryChecked | None:
    """The line read back from `check-query`'s output (its last such line); None if none."""
    found = None
    for line in text.splitlines():
        match = _LINE.fullmatch(line.strip())
        if match is not None:
            key = tuple(ast.literal_eval(match["key"]))
            found = QueryChecked(match["path"], match["mode"], key, match["depends"] or "")
    return found
