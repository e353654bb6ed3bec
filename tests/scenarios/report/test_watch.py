"""Every "Watch" names something the run makes: a file a scenario's folder really holds, or a
command that parses. A learner told to look at `log/spark-app.log` looks at nothing, so a
Watch naming a file no process writes, or a command that does not run, fails here.

The names a run makes are taken from the code that makes them (the apps' settings and logs,
the Stage's folders, the clusters' log names), so renaming a file in the code fails this test
until the narration follows.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

import pytest

from kafka_app.apache.cluster import server_log_name
from kafka_app.logs import LOG_FILE_NAME as PRODUCER_LOG
from launch.folders import Folders
from launch.process import CONSOLE_SUFFIX
from scenarios.cli import main_parser as scenarios_parser
from scenarios.report.story import RUNTIME, written_steps
from spark_app.lines.gc_log import FILE_NAME as GC_LOG
from spark_app.runtime.cluster import MASTER_LOG
from spark_app.settings import OUTPUT_FILE_NAME, SPARK_LOG_FILE_NAME

_FOLDERS = Folders(Path("scenario"))
# The files a run's processes write, by the folder they are in; "*" stands for a node's id or a
# process's name. worker-loss starts its cluster in "cluster".
RUN_FILES = {
    _FOLDERS.log.name: {
        OUTPUT_FILE_NAME,
        SPARK_LOG_FILE_NAME,
        PRODUCER_LOG,
        GC_LOG,
        server_log_name(1, 1),
        server_log_name("*", 3),
    },
    "cluster": {MASTER_LOG},
    _FOLDERS.processes.name: {f"*{CONSOLE_SUFFIX}"},  # each process's console, named after it
}
# A Watch may name a file without its folder, but then only a file with a name of its own.
NAMED_FILES = RUN_FILES[_FOLDERS.log.name] | RUN_FILES["cluster"]
# What Spark writes in a checkpoint (offsets/N, commits/N, state/…), and its first file.
CHECKPOINT_ENTRIES = {"offsets", "commits", "state", "sources", "metadata"}

_FILE = re.compile(r"(?:[\w{}…<>.-]+/)*[\w{}…<>-]+\.(?:log|out|properties)\b")
_CHECKPOINT_PATH = re.compile(r"\b(?:offsets|commits|state|sources)/[\w{}…<>/_.-]*")
_COMMAND = re.compile(r"`python -m ([^`]+)`")


def _as_pattern(name: str) -> str:
    """A file name as a Watch writes it, with its placeholders (`<id>`, `{…}`) as wildcards."""
    return re.sub(r"<[^>]+>", "*", name.replace(RUNTIME, "*"))


def _file_problem(token: str) -> str | None:
    *folders, name = token.split("/")
    named = [f for f in folders if f not in ("", RUNTIME)]
    if named and named[-1] not in RUN_FILES:
        return f"{token}: a run has no folder {named[-1]}/ (it has {', '.join(sorted(RUN_FILES))})"
    known = RUN_FILES[named[-1]] if named else NAMED_FILES
    pattern = _as_pattern(name)
    if not any(fnmatch.fnmatch(k, pattern) or fnmatch.fnmatch(pattern, k) for k in known):
        return f"{token}: no process of a run writes a file named like {name} there"
    return None


def _command_problem(command: str) -> str | None:
    module, *args = shlex.split(command)
    if module != "scenarios":
        return f"python -m {command}: only the scenarios' commands are checked here; add its parser"
    try:
        scenarios_parser().parse_args(args)
    except SystemExit:
        return f"python -m {command}: does not parse"
    return None


def watch_problems(watch: str) -> list[str]:
    problems = [_file_problem(token) for token in _FILE.findall(watch)]
    problems += [_command_problem(command) for command in _COMMAND.findall(watch)]
    return [p for p in problems if p]


STEPS = [w for w in written_steps() if w.step.watch]


@pytest.mark.parametrize("written", STEPS, ids=[f"{w.scenario}:{w.line}" for w in STEPS])
def test_every_watch_names_what_the_run_makes(written) -> None:  # type: ignore[no-untyped-def]
    assert watch_problems(written.step.watch) == [], f"{written.module}:{written.line}"


def test_watches_name_files_and_checkpoint_entries_at_all() -> None:
    """The catalog's Watches do point at files and commands (else the test above checks nothing)."""
    watches = " ".join(w.step.watch for w in STEPS)
    assert len(_FILE.findall(watches)) >= 5
    assert len(_COMMAND.findall(watches)) >= 2
    assert {p.split("/")[0] for p in _CHECKPOINT_PATH.findall(watches)} <= CHECKPOINT_ENTRIES


@pytest.mark.parametrize(
    "watch, problem",
    [
        ("two lines per message in log/streaming-output.log", None),
        (
            "the warning in log/spark-app.log",
            "no process of a run writes a file named like spark-app.log",
        ),
        ("kafka-server-<id>.log of the controller", None),
        ("the Master in cluster/master.log", None),
        ("the Master in workers/master.log", "a run has no folder workers/"),
        ("the Master in log/master.log", "no process of a run writes a file named like master.log"),
        ("the producer's console in processes/producer.out", None),
        (
            "the producer's console in processes/producer.log",
            "a file named like producer.log there",
        ),
        ("`python -m scenarios verify` reports every value once", None),
        ("`python -m scenarios verfiy`", "does not parse"),
    ],
)
def test_a_wrong_watch_is_named(watch: str, problem: str | None) -> None:
    found = watch_problems(watch)
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0]
