"""A checkpoint file torn by a crash of the machine, and what to do about it, file by file.

Spark writes every checkpoint file to a temporary name and renames it into place, so a crash
of the app never leaves half a file. A crash of the machine can: neither Spark nor Hadoop's
local file system calls fsync, so after a power loss the renamed name may be on disk with none
or only some of its bytes. Which file is torn decides the repair:

- the newest `offsets/N` with no `commits/N`: the plan of a batch that never ran. Delete it;
  Spark plans batch N again.
- the newest `commits/N`: batch N ran and wrote its output. Delete it; Spark runs batch N again
  from `offsets/N`, and only an idempotent sink (ours, keyed on the batch id) writes nothing twice.
- any other file (an older batch, `metadata`, `sources/0/0`, a committed batch's plan): restore
  it from a copy, or start over on a new checkpoint folder.

Usage: `raise torn_file_error(Path("checkpoints/offsets/7"), "is empty")`
"""

from __future__ import annotations

from pathlib import Path

from spark_app.errors import TornFileError

__all__ = ["torn_file_error", "repair"]


def _newest(folder: Path) -> int | None:
    ids = [int(p.name) for p in folder.iterdir() if p.name.isdigit()] if folder.is_dir() else []
    return max(ids, default=None)


def repair(path: Path) -> str:
    """What to do about the torn file at `path`, in one or two sentences."""
    kind, name = path.parent.name, path.name
    checkpoint = path.parent.parent
    crc = f"{kind}/.{name}.crc"
    if (
        name.isdigit()
        and kind == "offsets"
        and _newest(path.parent) == int(name)
        and not (checkpoint / "commits" / name).exists()
    ):
        return (
            f"Batch {name} never ran (no commits/{name}): delete offsets/{name} and {crc}; "
            f"Spark plans batch {name} again."
        )
    if name.isdigit() and kind == "commits" and _newest(path.parent) == int(name):
        return (
            f"Batch {name} ran and wrote its output: delete commits/{name} and {crc}; Spark "
            f"runs batch {name} again from offsets/{name} (an idempotent sink, like this app's "
            f"exactly-once one, writes nothing twice)."
        )
    return (
        "Restore it from a copy, or delete the checkpoint folder to start over (the count "
        "restarts)."
    )


def torn_file_error(path: Path, how: str) -> TornFileError:
    """The one-line error for a checkpoint file that `how` ("is empty", "ends in the middle of
    its JSON") says is torn, with the repair that fits that file."""
    return TornFileError(
        f"{path} {how}: a write torn by a crash of the machine (a power loss "
        f"before the file system flushed it), or an edit. {repair(path)}"
    )
