"""Fetch the stack's jars before the first scenario starts, with their progress on screen.

Apache Kafka's jars and Spark's connector are fetched once into the project's cache by the
processes that need them: the broker and the Spark app. Inside a scenario that first fetch
showed only as "still waiting for the broker to listen" for half a minute. Run first, here,
it prints its own progress (`fetching kafka-4.1.2: … jar(s), … MB`), and a machine that cannot
reach Maven Central stops with the fetch's one line, which names `--offline`, before any
scenario starts. With the jars cached each command only checks the cache (under a second).

The apps' own prefetch commands do the work, in the Spark app's Python for the connector: the
version a matrix runs decides which connector it needs.

A scenario that moves its brokers to another Kafka (`Scenario.kafka_versions`, kafka-upgrade's
target) has that version's jars fetched here too, so that its roll does not wait on a download.

Usage: `prefetch_jars(settings, narrator.say, scenarios)` before the scenarios run.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence

from maven_jars.prefetch import is_fetched_line
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.errors import ScenarioError

__all__ = ["prefetch_jars", "prefetch_commands"]


def prefetch_commands(settings: RunSettings, scenarios: Sequence[Scenario] = ()) -> list[list[str]]:
    """The commands that fetch what `settings`' stack and `scenarios` need (none for the
    stand-ins)."""
    commands = []
    if settings.kafka == "apache" and not settings.bootstrap_servers:
        version = ["--kafka-version", settings.kafka_version] if settings.kafka_version else []
        commands.append([sys.executable, "-m", "kafka_app.apache.jars", *version])
        moved_to = sorted(
            {v for s in scenarios for v in s.kafka_versions} - {settings.kafka_version}
        )
        commands += [
            [sys.executable, "-m", "kafka_app.apache.jars", "--kafka-version", v] for v in moved_to
        ]
    if settings.source == "spark-kafka":
        commands.append([settings.spark_python, "-m", "spark_app.runtime.connector_jars"])
    if settings.checkpoint_store != "local":  # the s3 client's 690 MB only when s3 is asked for
        commands.append([sys.executable, "-m", "checkpoint_stores.jars", settings.checkpoint_store])
    return commands


def prefetch_jars(
    settings: RunSettings, say: Callable[[str], None], scenarios: Sequence[Scenario] = ()
) -> None:
    """Run each command, passing on what it says while it fetches; with the jars cached only
    its closing line ("… jars in <folder>") comes, and that is left out. A failure is one
    ScenarioError line: the fetch's own."""
    for command in prefetch_commands(settings, scenarios):
        process = subprocess.Popen(
            command, cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        said: list[str] = []
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip()
            if line:
                said.append(line)
                if not is_fetched_line(line):
                    say(line)
        if process.wait() != 0:
            raise ScenarioError(
                said[-1].removeprefix("error: ")
                if said
                else f"{' '.join(command[1:])} exited with {process.returncode}"
            )
