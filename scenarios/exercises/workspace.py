"""The folder an exercise (or the puzzle) owns, and what its setup leaves there for the attendee.

Everything of one exercise lives under one folder, `exercise/NAME/` (the puzzle's: `puzzle/`),
relative to where the attendee works: the Stage's `checkpoints/`, `log/`, `kafka-data/` and
`processes/`, the job as a script (`app.sh`: the Spark app on this folder's Kafka, checkpoint
and log, with what the attendee adds after it), and `.setup/setup.json`, what the setup did and
saw (Kafka's address, the job's arguments, the facts `--check` judges against, kept out of the
way of the attendee's `ls`). A new start of the
same exercise empties the folder; `--reset` removes it.

The attendee's commands name the folder as they would type it (relative), so the task's lines
can be copied; the Stage gets it resolved, since its processes run from the folder itself.

Usage:
    ws = Workspace(Path("exercise/skipped-range"))
    ws.save(Setup("skipped-range", "apache/connector", "127.0.0.1:40123", "Experience", args, {}))
    ws.load().facts["processed"]
"""

from __future__ import annotations

import json
import shlex
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from checkpoint_stores import CheckpointPlace
from launch.commands import spark_command
from launch.folders import Folders
from scenarios.exercises.errors import NotSetUp
from spark_app.settings import SparkAppSettings

__all__ = ["EXERCISE_HOME", "PUZZLE_HOME", "Setup", "Workspace"]

# Where the exercises' folders and the puzzle's go, relative to where the attendee works.
EXERCISE_HOME = Path("exercise")
PUZZLE_HOME = Path("puzzle")


@dataclass(frozen=True)
class Setup:
    """What a setup did: where Kafka is, the job's arguments, and what it saw (its facts)."""

    name: str
    stack: str
    bootstrap_servers: str
    topic: str
    # The job's arguments after `python -m spark_app`: this folder's Kafka, checkpoint and log,
    # and the job's own options (a crash-always release, a slow store).
    app_args: tuple[str, ...]
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Workspace:
    """One exercise's folder, as the attendee names it (relative to where they work)."""

    root: Path
    # The job's script: `app.sh`, which takes more options after it (an exercise), or the
    # puzzle's `job.sh`, edited in place, since `puzzle --check` runs it as it stands.
    script: str = "app.sh"

    @property
    def folders(self) -> Folders:
        """The Stage's folders: resolved, since its processes run from the folder itself."""
        return Folders(self.root.resolve())

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def log(self) -> Path:
        return self.root / "log"

    @property
    def output_log(self) -> Path:
        return SparkAppSettings(log_dir=self.log).output_file

    @property
    def spark_log(self) -> Path:
        return SparkAppSettings(log_dir=self.log).spark_log_file

    @property
    def setup_file(self) -> Path:
        return self.kept / "setup.json"

    @property
    def kept(self) -> Path:
        """What the setup keeps for the judge: the output log as it left it, the hints given."""
        return self.root / ".setup"

    @property
    def app_script(self) -> Path:
        return self.root / self.script

    @property
    def exists(self) -> bool:
        return self.setup_file.is_file()

    # -- the job ------------------------------------------------------------------------------
    def job_settings(self, bootstrap_servers: str, topic: str, **options: Any) -> SparkAppSettings:
        """The job's settings: this folder's checkpoint and log, the setup's Kafka, `options`."""
        return SparkAppSettings(
            bootstrap_servers=bootstrap_servers,
            topic=topic,
            checkpoint=CheckpointPlace(folder=self.checkpoints),
            log_dir=self.log,
            **options,
        )

    def write_app_script(self, settings: SparkAppSettings, *, more_options: bool = True) -> None:
        """The job as a script the attendee runs from where they work. With `more_options`
        the options given after it go after the job's own (argparse takes the last of a
        repeated option, so an added `--on-negative-key ignore` replaces the job's own);
        without, the script is the job as it stands, to be edited."""
        argv = spark_command(settings, python="python")
        up = "/".join(".." for _ in self.root.parts)
        more = ' "$@"' if more_options else ""
        how = (
            "the options you add after\n# `sh " + self.script + "` go after these."
            if more_options
            else "change the job by editing\n# the line below."
        )
        self.app_script.write_text(
            "#!/bin/sh\n"
            f"# The Spark app of {self.root}: its Kafka, its checkpoint and its log; {how}\n"
            f'cd "$(dirname "$0")/{up}" || exit 2\n'
            f"exec uv run {shlex.join(argv)}{more}\n",
            encoding="utf-8",
        )
        self.app_script.chmod(0o755)

    def app_words(self) -> str:
        """How the attendee starts the job."""
        return f"sh {self.app_script}"

    def inspect_words(self, setup: Setup | None) -> str:
        """`python -m spark_app inspect` on this folder's checkpoint, with its Kafka (inspect's
        own options: it takes no --source or --topic, so the job's argv does not fit)."""
        kafka = setup.bootstrap_servers if setup is not None else "HOST:PORT"
        return (
            f"uv run python -m spark_app inspect --checkpoint-dir {self.checkpoints} "
            f"--bootstrap-servers {kafka}"
        )

    def reset_words(self) -> str:
        return (
            f"uv run python -m spark_app reset --checkpoint-dir {self.checkpoints} "
            f"--log-dir {self.log}"
        )

    def verify_words(self) -> str:
        return f"uv run python -m scenarios verify {self.output_log}"

    # -- what the setup did -------------------------------------------------------------------
    def save(self, setup: Setup) -> None:
        self.kept.mkdir(parents=True, exist_ok=True)
        self.setup_file.write_text(json.dumps(asdict(setup), indent=1) + "\n", encoding="utf-8")

    def load(self) -> Setup:
        """The setup's record; NotSetUp when there is none here."""
        try:
            data = json.loads(self.setup_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise NotSetUp(f"nothing set up in {self.root}/ ({error})") from error
        return Setup(**{**data, "app_args": tuple(data["app_args"])})

    def remove(self) -> bool:
        """Remove the whole folder; whether there was one."""
        if not self.root.exists():
            return False
        shutil.rmtree(self.root)
        return True

    # -- hints ----------------------------------------------------------------------------------
    def next_hint(self, hints: int) -> int:
        """The number (from 0) of the hint to give now, one more each call, the last again
        once all were given."""
        path = self.kept / "hints-given"
        given = int(path.read_text()) if path.is_file() else 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(min(given + 1, hints)))
        return min(given, hints - 1)
