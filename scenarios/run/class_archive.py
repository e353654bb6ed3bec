"""Spark's class archive written in the background of a run, for the run's later starts.

A Spark start maps its classes from an archive in about half the JVM's time (docs/spark-app.md).
An app writes the archive after its first batch with data, in a background JVM that a stop of
the app kills; a scenario's apps live seconds, not the minute that takes, so in a fresh clone
every start of a `run all` went without the archive: 9 to 12 s to the first output line instead
of about 6. The apps keep the classes they listed, and before each scenario the run resumes the
writing from them (`python -m spark_app class-archive`, niced, so it takes only idle CPU), until
it is in place. The writer is a process of the run: it is stopped with the run however the run
ends, and what it had not finished is discarded.

Usage:
    with archive_in_background(settings, base) as before_each_scenario:
        for scenario in scenarios:
            before_each_scenario()
            ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from launch.commands import class_archive_command
from launch.group import ProcessGroup
from launch.process import ManagedProcess
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from spark_app.runtime.archive_command import ARCHIVE_IN_PLACE

__all__ = ["FOLDER", "archive_in_background"]

FOLDER = "class-archive"  # under the run folder: the writer's console


class _Writer:
    """Starts the command before a scenario unless one is running or the archive is in place;
    the command itself decides whether there is anything to write (exit 3: not yet)."""

    def __init__(self, group: ProcessGroup, python: str) -> None:
        self.group, self.python = group, python
        self.process: ManagedProcess | None = None
        self.tries = 0

    def before_scenario(self) -> None:
        if self.process is not None and (
            self.process.running or self.process.returncode == ARCHIVE_IN_PLACE
        ):
            return
        self.tries += 1
        self.process = self.group.start(
            "class-archive",
            class_archive_command(self.python),
            output_name=f"class-archive-{self.tries}",
        )


@contextmanager
def archive_in_background(settings: RunSettings, base: Path) -> Iterator[Callable[[], None]]:
    """A function to call before each scenario; the writer is stopped when the block ends.
    Does nothing unless `settings.class_archive`."""
    if not settings.class_archive:
        yield lambda: None
        return
    folder = base / FOLDER
    with ProcessGroup(folder, cwd=base, env={"PYTHONPATH": str(PROJECT_ROOT)}) as group:
        yield _Writer(group, settings.spark_python).before_scenario
