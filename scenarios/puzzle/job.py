"""The puzzle's job, `puzzle/job.sh`, as the attendee left it: read back, checked, run.

The job is a script with one line that starts the Spark app (`exec uv run python -m spark_app
…`). The attendee repairs the puzzle by editing that line's options, or the checkpoint, or both;
`puzzle --check` runs the line as it stands, with this interpreter (`python -m spark_app` and
the arguments after it: the attendee's own command line, run as written). The part the check
reads its verdict from must stay: the puzzle's Kafka, checkpoint folder and log folder, as the
setup wrote them (`fixed`).

Usage:
    args = job_args(ws.app_script.read_text())
    missing = missing_fixed(args, setup.facts["fixed_args"])
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from scenarios.exercises.errors import HandsOnError

__all__ = ["APP_MODULE", "job_args", "missing_fixed"]

APP_MODULE = "spark_app"


def job_args(script: str) -> list[str]:
    """The arguments after `-m spark_app` on the script's line that starts the app."""
    for line in script.splitlines():
        if line.lstrip().startswith("#"):
            continue
        try:
            words = shlex.split(line)
        except ValueError as error:
            raise HandsOnError(f"job.sh: cannot read the line {line!r}: {error}") from error
        for i in range(len(words) - 1):
            if words[i] == "-m" and words[i + 1] == APP_MODULE:
                return [w for w in words[i + 2 :] if w != "$@"]
    raise HandsOnError(f"job.sh has no line that starts the app (python -m {APP_MODULE} …)")


def missing_fixed(args: Sequence[str], fixed: Sequence[str]) -> list[str]:
    """The fixed options (flag and value, in pairs) the job's arguments no longer hold as the
    last word on them (argparse keeps the last of a repeated option)."""
    last: dict[str, str] = {}
    for i, word in enumerate(args):
        if word.startswith("--"):
            flag, _, value = word.partition("=")
            last[flag] = value or (args[i + 1] if i + 1 < len(args) else "")
    return [
        f"{fixed[i]} {fixed[i + 1]}"
        for i in range(0, len(fixed) - 1, 2)
        if last.get(fixed[i]) != fixed[i + 1]
    ]
