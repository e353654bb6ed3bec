"""SPARK-56216: a format-2 snapshot zip cut short; automatic snapshot repair on format 2.

Automatic snapshot repair (SPARK-54121, spark.sql.streaming.stateStore.autoSnapshotRepair.enabled)
passes a snapshot that fails to load over and rebuilds the state from an older one and the
changelogs. It served checkpoint format 1 only: the format-2 load (state store checkpoint ids,
`loadWithCheckpointId`) had no recovery, so a corrupt snapshot zip failed the restart.
apache/spark#55015 (March 2026) gave the format-2 load the same repair. As read in the jars,
both are in 4.2.0 only (its conf, and `loadSnapshotWithCheckpointId`): 4.0 and 4.1 predate the
repair, so no served line has the gap, and a broken zip fails any restart on 4.0 and 4.1.

SPARK-51988's exhibit beside it flips one byte the zip itself does not check, so only Spark's
`.crc` can tell; this one cuts the zip to half its length, which no zip reader gets past, on
every line. The app counts on RocksDB with changelog checkpointing and checkpoint format 2 until
a snapshot zip exists that a restart will load, stops cleanly, cuts that zip (Hadoop's hidden
checksum of it removed, as an object store has none; Spark's `.crc` kept, as a corrupt file
keeps it) and starts again.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-56216 --fast`
"""

from __future__ import annotations

import re
import zipfile
from io import BytesIO
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, Restart, exhibit_step, restart_after
from scenarios.catalog.museum.spark_51988 import FORMAT_2, snapshot_to_load, wait_for_snapshot
from scenarios.engine.observers.state_folder import cadence, partition_of
from scenarios.engine.stage import Stage
from spark_app.errors import CheckpointError
from spark_app.lines.known_bug_table import bug_named

__all__ = ["EXHIBIT", "STEP", "run", "cut_short", "opens", "repair_lines"]

BUG = bug_named("SPARK-56216")

STEP = exhibit_step(
    BUG,
    "a snapshot zip a format-2 restart loads, cut to half its length",
    happens="the app counts on RocksDB with changelog checkpointing and checkpoint format 2 "
    "until a snapshot `<v>_<id>.zip` exists that a restart will load, and stops cleanly; the "
    "scenario cuts that zip to half its length (it no longer opens), removes Hadoop's hidden "
    "checksum of it, and starts the app again",
    watch="the narration's line on the cut, then " + RESTART_WATCH + "; on a restart that went "
    "on, the narration's line on the snapshot passed over",
    why="a zip cut short is refused by every zip reader: what the restart does next is the "
    "load's recovery, not a checksum's, and format 2 loads through its own path",
    question="On the Spark line this run uses: will the restart stop on the broken zip (which "
    "error?), or pass it over and go on?",
    giveaway=("autoSnapshotRepair",),
)


def run(stage: Stage) -> None:
    cut: list[str] = []
    log_from: list[int] = []

    def change(checkpoint: Path) -> str:
        log_from.append(len(stage.app.spark_log()))
        zip_name = snapshot_to_load(checkpoint)
        if zip_name is None:
            raise CheckpointError(f"no snapshot zip in {checkpoint} for the next load")
        cut.append(zip_name)
        return _cut(stage, partition_of(checkpoint) / zip_name)

    with stage.step(STEP):
        restart_after(
            stage,
            BUG,
            change,
            options={**FORMAT_2, **cadence(stage.settings.fast)},
            wait_for=lambda checkpoint: wait_for_snapshot(stage, checkpoint),
            observed=lambda restart: _read_spark_log(stage, restart, log_from),
        )
        stage.fact(f"{BUG.ticket} zip", cut[0] if cut else None)


def cut_short(data: bytes) -> bytes:
    """The zip's first half: its central directory, at the end, is gone, and its last entries."""
    return data[: len(data) // 2]


def opens(data: bytes) -> bool:
    """Whether every entry of the zip reads back."""
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            for name in archive.namelist():
                archive.read(name)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError):
        return False
    return True


# The store's lines on a snapshot it could not load, or a repair (their words vary by line).
_REPAIR = re.compile(r"[^\n]*(?:[Aa]uto[- ]?(?:snapshot )?[Rr]epair|Failed to load snapshot)[^\n]*")


def repair_lines(spark_log: str) -> list[str]:
    """spark.log's lines on a snapshot passed over or repaired, each cut to 200 characters."""
    return [m.group(0).strip()[:200] for m in _REPAIR.finditer(spark_log)]


def _read_spark_log(stage: Stage, restart: Restart, log_from: list[int]) -> Restart:
    text = stage.app.spark_log()[log_from[0] if log_from else 0 :]
    lines = repair_lines(text)
    stage.fact(f"{BUG.ticket} spark.log", lines[:5])
    if lines:
        stage.say(f"spark.log: {lines[0]}")
    return restart


def _cut(stage: Stage, target: Path) -> str:
    before = target.read_bytes()
    after = cut_short(before)
    tmp = target.with_name(f".{target.name}.cutting")
    tmp.write_bytes(after)
    tmp.replace(target)  # a rename, so no reader meets half a write
    hidden = target.with_name(f".{target.name}.crc")
    removed = hidden.exists()
    hidden.unlink(missing_ok=True)
    still_opens = opens(after)
    stage.fact(
        f"{BUG.ticket} cut",
        {
            "zip": target.name,
            "size_before": len(before),
            "size_after": len(after),
            "opens": still_opens,
            "spark_crc": Path(f"{target}.crc").exists(),
            "hadoop_crc_removed": removed,
        },
    )
    return (
        f"cut {target.name} from {len(before)} to {len(after)} bytes; it "
        f"{'still opens' if still_opens else 'no longer opens'}; Hadoop's hidden checksum "
        f"{'removed' if removed else 'was not there'}"
    )


EXHIBIT = Exhibit(BUG, run)
