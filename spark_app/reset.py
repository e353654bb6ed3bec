"""`python -m spark_app reset`: start the next run clean, as seed 001's hard reset did.

The checkpoint folder is emptied, hidden files included (`rm -rf checkpoints/*` leaves Spark's
`.metadata.crc` behind) but not `.gitkeep`, which keeps the folder in git. The output log (and
the exactly-once sink's journal, which describes it) is moved aside under a timestamped name, so
`python -m scenarios verify` afterwards reads the new run only and the old one stays readable.
The crash-once record, `crashed-on.txt`, goes aside with it: it names the values the app has
crashed on already, and left in place it kept a negative key on such a value from crashing the
next run.

A running app would go on writing into what this removes, so a reset on the checkpoint of an
app that runs is refused. Linux's /proc tells: every `python -m spark_app` process's command
line and working folder give its checkpoint folder. Elsewhere nothing is checked.

Usage: `for line in reset(Path("checkpoints"), Path("log"), datetime.now()): print(line)`
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

from spark_app.errors import AppRunningError, NotACheckpointError
from spark_app.query.negative_key import CRASH_FILE_NAME
from spark_app.query.sink import JOURNAL_SUFFIX
from spark_app.settings import OUTPUT_FILE_NAME, SparkAppSettings

__all__ = ["reset", "running_apps", "KEPT", "aside_name"]

# What the reset leaves in the checkpoint folder: git's placeholder for the empty folder.
KEPT = ".gitkeep"

_PROC = Path("/proc")


def reset(
    checkpoint_dir: Path,
    log_dir: Path,
    now: datetime,
    running: Callable[[Path], list[int]] | None = None,
) -> list[str]:
    """Empty `checkpoint_dir` and move the output log aside; one line per thing done.

    Raises AppRunningError, having changed nothing, when an app runs on `checkpoint_dir`, and
    NotACheckpointError when it holds anything Spark does not write there (a mistyped
    --checkpoint-dir must not empty a home folder).
    """
    pids = (running or running_apps)(checkpoint_dir)
    if pids:
        raise AppRunningError(
            f"the Spark app runs on {checkpoint_dir} (pid "
            f"{', '.join(map(str, pids))}): stop it first (Ctrl-C), then "
            f"reset again."
        )
    emptied = _empty(checkpoint_dir)  # first: it refuses a folder that is not a checkpoint
    return [
        emptied,
        *_move_aside(log_dir / OUTPUT_FILE_NAME, now),
        *_move_crash_record_aside(log_dir / CRASH_FILE_NAME, now),
    ]


# What Spark writes at a checkpoint's top level; a hidden `.NAME.crc` or `.NAME.<uuid>.tmp` (a
# write a kill -9 cut short) too. Anything else means the folder is not a checkpoint.
_CHECKPOINT_ENTRIES = frozenset({"offsets", "commits", "metadata", "sources", "state", KEPT})


def _foreign_entries(folder: Path) -> list[str]:
    return sorted(
        e.name
        for e in folder.iterdir()
        if e.name not in _CHECKPOINT_ENTRIES
        and not (e.name.startswith(".") and e.name.endswith((".crc", ".tmp")))
    )


def _empty(folder: Path) -> str:
    if not folder.is_dir():
        return f"no checkpoint folder {folder}: nothing to remove"
    foreign = _foreign_entries(folder)
    if foreign:
        raise NotACheckpointError(
            f"{folder} holds {', '.join(foreign[:5])}{' …' if len(foreign) > 5 else ''}, which "
            f"Spark does not write in a checkpoint folder: nothing was removed. Name the app's "
            f"checkpoint folder with --checkpoint-dir."
        )
    removed = []
    for entry in sorted(folder.iterdir()):
        if entry.name == KEPT:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
            removed.append(entry.name + "/")
        else:
            entry.unlink()
            removed.append(entry.name)
    if not removed:
        return f"{folder} is empty already"
    return f"emptied {folder}: removed {', '.join(removed)}"


def aside_name(log: Path, now: datetime) -> Path:
    """`log/streaming-output.log` -> `log/streaming-output.20261125-183012.log` (a free name)."""
    stamp = now.strftime("%Y%m%d-%H%M%S")
    candidate = log.with_name(f"{log.stem}.{stamp}{log.suffix}")
    n = 2
    while candidate.exists():
        candidate = log.with_name(f"{log.stem}.{stamp}-{n}{log.suffix}")
        n += 1
    return candidate


def _move_aside(log: Path, now: datetime) -> Iterator[str]:
    if not log.exists():
        yield f"no {log} to move aside"
        return
    target = aside_name(log, now)
    log.rename(target)
    yield f"moved {log} to {target}"
    journal = log.with_name(log.name + JOURNAL_SUFFIX)
    if journal.exists():
        journal.rename(target.with_name(target.name + JOURNAL_SUFFIX))
        yield f"moved {journal} to {target.name + JOURNAL_SUFFIX} beside it"


def _move_crash_record_aside(record: Path, now: datetime) -> Iterator[str]:
    """crash-once's record of the values it crashed on: the next run crashes on them again."""
    if not record.exists():
        return
    target = aside_name(record, now)
    record.rename(target)
    yield (
        f"moved {record} to {target.name} beside it: a negative key crashes the next run again, "
        f"whatever its value"
    )


def running_apps(checkpoint_dir: Path) -> list[int]:
    """Pids of `python -m spark_app` processes (not reset, inspect or cluster) whose checkpoint
    folder is `checkpoint_dir`; [] where /proc does not exist."""
    target = checkpoint_dir.resolve()
    found = []
    for entry in _PROC.glob("[0-9]*"):
        if int(entry.name) == os.getpid():
            continue
        folder = _checkpoint_of(entry)
        if folder is not None and folder == target:
            found.append(int(entry.name))
    return sorted(found)


def _checkpoint_of(proc: Path) -> Path | None:
    """The checkpoint folder of the app process `proc` runs, or None when it runs no app."""
    try:
        argv = [a.decode(errors="replace") for a in (proc / "cmdline").read_bytes().split(b"\0")]
        cwd = Path(os.readlink(proc / "cwd"))
    except OSError:  # gone meanwhile, or another user's
        return None
    args = _app_args(argv[:-1] if argv and argv[-1] == "" else argv)
    if args is None:
        return None
    folder = _parsed_checkpoint_dir(args)
    return None if folder is None else (cwd / folder).resolve()


def _app_args(argv: list[str]) -> list[str] | None:
    """The app's options in a command line `python … -m spark_app OPTIONS`; None otherwise."""
    for i in range(len(argv) - 1):
        if argv[i] == "-m" and argv[i + 1] == "spark_app":
            rest = argv[i + 2 :]
            if rest[:1] and rest[0] in ("reset", "inspect", "cluster"):
                return None
            return rest
    return None


def _parsed_checkpoint_dir(args: list[str]) -> Path | None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--checkpoint-dir", type=Path, default=SparkAppSettings().checkpoint.folder)
    try:
        known, _ = parser.parse_known_args(args)
    except SystemExit:  # a command line argparse cannot read: not ours to judge
        return None
    return known.checkpoint_dir
