"""The Spark app's last console line, boiled down to what fits the demo's screen and the live
lines under a run's narration (live_tail.py).

The app ends a failure with one line, `spark_app: <CONDITION>: <message>` (spark_app/errors.py),
whose message may carry Spark's words and, for a task's failure, the whole Java stack trace
flattened into it (11,178 characters for a data loss read by the connector). On screen the
learner needs the condition, what happened in one line, and what to do; the full text and the
trace are in `log/spark.log`, which the panel names.

Usage:
    words = read_last_words("spark_app: KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: … [playground: …]")
    words.condition, words.what, words.remedy
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spark_app.errors import error_in_text

__all__ = ["LastWords", "read_last_words", "without_trace", "MAX_WHAT_CHARS"]

# Where a flattened Java stack trace begins: a frame (`at org.apache.Foo.bar(Foo.scala:36)`),
# a nested cause, or the driver's half of a task failure.
_TRACE = re.compile(r"\s(?:at [\w$]+(?:\.[\w$<>]+)+\(|Caused by: |Driver stacktrace:)")
# The playground's own advice after Spark's words: `[playground: … what to do …]`.
_ADVICE = re.compile(r"\s*\[playground: (.*)\]\s*$")
# Spark's data-loss conditions put the facts after their fixed sentence, behind "Reason: ".
_REASON = "Reason: "
# A message without a separate remedy is shown whole up to this many characters (it says what
# to do at its end; the app's own lines are shorter than this).
MAX_WHAT_CHARS = 400


@dataclass(frozen=True)
class LastWords:
    """The condition (None for a line that is not one of the app's errors), what happened,
    and the remedy when the line has one apart from the rest."""

    condition: str | None
    what: str
    remedy: str | None = None


def without_trace(text: str) -> str:
    """`text` up to where a flattened Java stack trace begins in it (stripped), or `text`."""
    found = _TRACE.search(text)
    return text[: found.start()].strip() if found else text


def _short(text: str, limit: int = MAX_WHAT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def read_last_words(line: str) -> LastWords:
    """The condition, what happened and the remedy in the app's last line."""
    error = error_in_text(line)
    if error is None:
        return LastWords(None, _short(without_trace(" ".join(line.split()))))
    message = " ".join(str(error).split()).removeprefix(f"{error.token}: ")
    advice = _ADVICE.search(message)
    remedy = " ".join(advice.group(1).split()) if advice else None
    what = without_trace(message[: advice.start()] if advice else message)
    if _REASON in what:
        what = what.split(_REASON, 1)[1]
    return LastWords(error.token, _short(what), remedy)
