"""A user's query checked before any Kafka starts: `run --query FILE.py` asks the Spark app.

`python -m spark_app check-query FILE.py` (on the run's PySpark) loads the module and has Spark
build and start it on a stand-in stream: a module that cannot run is the app's one line, and the
run stops with it (exit 2) before anything starts. For one that runs, its mode, KEY and what its
result depends on come back (spark_app/lines/query_lines.py), and the run says before the first
scenario whether its result can be held to the batch result row for row.

Usage: `settings = checked_query(settings, narrator.say)`
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from launch.commands import check_query_command
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.errors import ScenarioError
from spark_app.lines.query_lines import parse_checked_line

__all__ = ["checked_query"]

_TIMEOUT_SEC = 300.0


def checked_query(settings: RunSettings, say: Callable[[str], None]) -> RunSettings:
    """The settings with what Spark said of the run's query (unchanged without one)."""
    if settings.query is None:
        return settings
    query = settings.query.resolve()
    say(f"checking the query module {settings.query} with Spark, before any Kafka starts")
    log_dir = Path(tempfile.mkdtemp(prefix="scenarios-query-check-"))
    try:
        done = subprocess.run(
            check_query_command(query, log_dir, python=settings.spark_python),
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_SEC,
            cwd=PROJECT_ROOT,
        )
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    checked = parse_checked_line(done.stdout)
    if done.returncode != 0 or checked is None:
        said = [line for line in done.stderr.splitlines() if line.startswith("spark_app: ")]
        raise ScenarioError(
            said[-1].removeprefix("spark_app: ")
            if said
            else f"{settings.query}: check-query exited {done.returncode}: {done.stderr[-300:]}"
        )
    say(
        f"{settings.query}: {checked.mode} mode, KEY {list(checked.key)}; the scenarios run it "
        "instead of the counter: their steps still speak of the counter, and the checks of the "
        "counter's output log give way to the oracle's at the end, over every record sent"
    )
    if checked.depends_on:
        say(
            f"{settings.query}: its result depends on batch boundaries ({checked.depends_on}): "
            "the final check holds what must still hold, not every row (docs/your-query.md)"
        )
    return replace(settings, query=query, query_checked=checked)
