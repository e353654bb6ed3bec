"""Every "Watch" names what is on the learner's screen while the step runs: the live lines.

A step's Watch is shown when the step starts running, above the processes' latest lines (the
narrator's live panel on a terminal; a CI log's reader has the same lines in the processes'
console files). So it may name what the producer, the app, a broker or a store prints, but not a
file nobody has open (`log/streaming-output.log`, `spark.log`), a checkpoint entry nobody sees
(`offsets/N` against `commits/N`), or a command to type: those belong in the answer, the why, or
the workshop's exercises.
"""

from __future__ import annotations

import re

import pytest

from scenarios.report.story import written_steps

_FILE = re.compile(r"(?:[\w{}…<>.-]+/)*[\w{}…<>-]+\.(?:log|out|properties|json|parquet)\b")
_CHECKPOINT_PATH = re.compile(r"\b(?:offsets|commits|state|sources)/[\w{}…<>/_.-]*")
_COMMAND = re.compile(r"`(?:uv run )?python -m [^`]+`")
# What a Watch must point at: a process whose lines are live on the screen.
_ON_SCREEN = re.compile(r"\b(producer|app|apps|broker|brokers|store|node|nodes|worker|master)\b")


def watch_problems(watch: str) -> list[str]:
    problems = [f"{f}: a file, not on the screen" for f in _FILE.findall(watch)]
    problems += [
        f"{p}: a checkpoint entry, not on the screen" for p in _CHECKPOINT_PATH.findall(watch)
    ]
    problems += [f"{c}: a command to type, not what to watch" for c in _COMMAND.findall(watch)]
    if not _ON_SCREEN.search(watch):
        problems.append("names no process whose lines are on the screen")
    return problems


STEPS = written_steps()


@pytest.mark.parametrize("written", STEPS, ids=[f"{w.scenario}:{w.line}" for w in STEPS])
def test_every_watch_names_what_is_on_the_screen(written) -> None:  # type: ignore[no-untyped-def]
    assert written.step.watch, "say what to watch while the step runs"
    assert watch_problems(written.step.watch) == [], f"{written.module}:{written.line}"


@pytest.mark.parametrize(
    "watch, problem",
    [
        ("the app's batch lines below: `batch N: Experience-0 [a, b)`", None),
        ("the producer's lines below", None),
        ("two lines per message in log/streaming-output.log", "a file, not on the screen"),
        ("offsets/N is there, commits/N is not, in the app's folder", "a checkpoint entry"),
        ("the app; then `python -m scenarios verify` reports it", "a command to type"),
        ("the count goes on", "names no process"),
    ],
)
def test_a_wrong_watch_is_named(watch: str, problem: str | None) -> None:
    found = watch_problems(watch)
    if problem is None:
        assert found == []
    else:
        assert len(found) >= 1 and problem in found[0]
