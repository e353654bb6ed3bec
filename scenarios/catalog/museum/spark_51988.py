"""SPARK-51988: a byte flipped in the RocksDB snapshot zip a format-2 restart loads.

From Spark 4.1 a state file gets Spark's own checksum beside it, `<file>.crc` (JSON: a CRC32C
of the whole file and its size), checked when the file is read back (SPARK-51972). RocksDB's
snapshot zip was the exception: its load opened the zip through Hadoop's file system rather
than through the checkpoint file manager that checks, so a zip whose bytes no longer matched
its `.crc` loaded without a word. apache/spark#54493 routes that read through the checking
manager on checkpoint format 2 only (format 1 can write two attempts' bytes under one name).

The app counts on RocksDB with changelog checkpointing and checkpoint format 2 until a snapshot
zip exists that a restart will load (the newest committed one at or below the last committed
version, as `inspect` reads it), stops cleanly, flips one byte of that zip and starts again.
The byte: the low bit of the first entry's modification time in its local header (offset 10),
which moves that time by two seconds. The zip's entries are deflated and each carries a CRC-32
that Java's ZipInputStream checks as it reads it, so a byte flipped in an entry's data is
refused by the zip itself on every line, before any checksum of Spark's could speak; the
modification time is covered by no check of the zip's (the central directory keeps its own
copy, which a streaming reader never reads), so the zip still opens and every file in it comes
out as it was. Only Spark's `.crc` can tell. Hadoop's hidden `.<name>.crc` beside the zip (the
local file system's own checksum, which would refuse the read on every line) is removed, as an
object store has none.

As run (26 Nov 2026): 4.0.0 (no `.crc`) and 4.1.1 (a `.crc` that no longer matched) loaded the
zip without a word. 4.2.0 did not refuse the restart, as the research notes had it: its check
failed on the zip in spark.log only, and its automatic snapshot repair
(spark.sql.streaming.stateStore.autoSnapshotRepair.enabled, on by default) passed the snapshot
over and rebuilt the state from the changelogs. So the exhibit reads the restart's part of
spark.log to tell the fix from the bug: both went on, and on every line the count was right.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-51988 --fast`
"""

from __future__ import annotations

import re
import zipfile
from io import BytesIO
from pathlib import Path

import crc32c

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import RESTART_WATCH, Restart, exhibit_step, restart_after
from scenarios.checker.expectations import check
from scenarios.engine.observers.state_folder import cadence, partition_of
from scenarios.engine.stage import Stage
from spark_app.checkpoint.state_data_source import store_layout
from spark_app.checkpoint.state_files import spark_checksum
from spark_app.errors import CheckpointError
from spark_app.lines.known_bug_table import RAN_ON, bug_named

__all__ = [
    "EXHIBIT",
    "STEP",
    "run",
    "FORMAT_2",
    "FLIP_AT",
    "FLIP_MASK",
    "flipped",
    "zip_contents",
    "snapshot_to_load",
    "wait_for_snapshot",
    "spark_checksum_matches",
    "count_judged",
    "outcome_seen",
]

BUG = bug_named("SPARK-51988")

FORMAT_2 = {"state_store": "rocksdb", "changelog_checkpointing": True, "checkpoint_format": 2}

# The first local header's modification time, low byte (after the signature, the version
# needed, the flags and the method: 4 + 2 + 2 + 2 bytes); its low bit is the time's seconds
# field in units of two, so a flip keeps a valid time (0..29 stays in 0..29).
FLIP_AT = 10
FLIP_MASK = 0x01
_LOCAL_HEADER = b"PK\x03\x04"


STEP = exhibit_step(
    BUG,
    "a byte flipped in the snapshot zip a format-2 restart loads",
    happens="the app counts on RocksDB with changelog checkpointing and checkpoint format 2 "
    "until a snapshot `<v>_<id>.zip` exists that a restart will load, and stops cleanly; the "
    f"scenario flips bit {FLIP_MASK:#04x} of byte {FLIP_AT} of that zip (the first entry's "
    "modification time: the zip still opens, every file in it unchanged), removes Hadoop's "
    "hidden checksum of it, and starts the app again",
    watch="the narration's line on the flip: whether Spark's `.crc` beside the zip (a CRC32C "
    "of the whole file) still matches it; then " + RESTART_WATCH,
    why="a snapshot zip is what a restart loads first: its bytes decide the state the count "
    "goes on from; Spark writes a checksum of it beside it from 4.1, and the checksum protects "
    "only if the load reads it. Which of refused, loaded or passed over happened, spark.log "
    "says",
    question="On the Spark line this run uses: will the restart notice that the zip no longer "
    "matches its checksum (which error?), or load it and go on, and is the count then right?",
    giveaway=("passed over",),
    checks=(f"{BUG.ticket}: the flipped zip still opens, its files unchanged",),
)


def run(stage: Stage) -> None:
    lines_before: list[int] = []
    flipped_zip: list[str] = []
    log_from: list[int] = []

    def change(checkpoint: Path) -> str:
        lines_before.append(_lines(stage.app.folders.output_log))
        log_from.append(len(stage.app.spark_log()))
        zip_name = snapshot_to_load(checkpoint)
        if zip_name is None:
            raise CheckpointError(
                f"no snapshot zip in {checkpoint} for the next load: "
                f"{store_layout(checkpoint).next_files}"
            )
        flipped_zip.append(zip_name)
        return _flip(stage, partition_of(checkpoint) / zip_name)

    with stage.step(STEP):
        restart = restart_after(
            stage,
            BUG,
            change,
            options={**FORMAT_2, **cadence(stage.settings.fast)},
            wait_for=lambda checkpoint: wait_for_snapshot(stage, checkpoint),
            observed=lambda restart: _read_spark_log(stage, restart, flipped_zip, log_from),
        )
        stage.fact(f"{BUG.ticket} zip", flipped_zip[0] if flipped_zip else None)
        if restart.outcome in (RAN_ON, BUG.when_fixed) and lines_before:  # it went on
            _count_after(stage, lines_before[0])


# Spark's check failing on a file, as spark.log has it (the class, then the file's URI).
_CHECK_FAILED = re.compile(r"\[CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED\][^\n]*?File: (\S+)")
# The store's own line before it: which snapshot failed, and how many tries it had.
_SNAPSHOT_FAILED = re.compile(r"Failed to load snapshot version \d+[^\n]*")


def outcome_seen(outcome: str, spark_log: str, zip_name: str) -> tuple[str, str]:
    """The restart's outcome once spark.log is read: one that went on after Spark's check
    failed on the flipped zip is the fix's (the snapshot passed over), not a silent load; any
    other outcome stands. With what the log said (or "")."""
    failed = [m for m in _CHECK_FAILED.finditer(spark_log) if m.group(1).endswith(f"/{zip_name}")]
    if outcome != RAN_ON or not failed:
        return outcome, ""
    store = _SNAPSHOT_FAILED.search(spark_log)
    said = f"spark.log: {store.group(0).strip()[:160]}: " if store else "spark.log: "
    return BUG.when_fixed, f"{said}{failed[0].group(0)[:240]}"


def _read_spark_log(
    stage: Stage, restart: Restart, zips: list[str], log_from: list[int]
) -> Restart:
    """A restart that went on: did Spark's check fail on the zip first (the restart's part of
    spark.log), and pass the snapshot over?"""
    if not zips:
        return restart
    text = stage.app.spark_log()[log_from[0] if log_from else 0 :]
    outcome, said = outcome_seen(restart.outcome, text, zips[0])
    if said:
        stage.say(said)
    stage.fact(f"{BUG.ticket} spark.log", said or "no checksum failure for the zip")
    if outcome == restart.outcome:
        return restart
    return Restart(
        outcome, f"{restart.detail}; {said}", restart.query_id_before, restart.query_id_after
    )


def snapshot_to_load(checkpoint: Path) -> str | None:
    """The snapshot zip the next load reads (its name in the partition folder), or None: the
    newest committed snapshot at or below the version the next batch loads."""
    try:
        files = store_layout(checkpoint).next_files
    except (CheckpointError, OSError, ValueError):  # a file caught while the app writes it
        return None
    return files[0] if files and files[0].endswith(".zip") else None


def wait_for_snapshot(stage: Stage, checkpoint: Path) -> None:
    """Snapshots come from background maintenance every few versions: wait for one to load."""
    found = stage.app.wait_while_up(
        lambda: snapshot_to_load(checkpoint),
        "a snapshot zip that a restart loads",
        timeout=stage.timings.spark_start_timeout_sec + 3 * 60,
        poll=0.5,
    )
    stage.say(f"a restart now loads {found} first")


def flipped(data: bytes) -> bytes:
    """The zip's bytes with the chosen bit flipped (the first entry's modification time)."""
    if not data.startswith(_LOCAL_HEADER) or len(data) <= FLIP_AT:
        raise ValueError("not a zip that starts with a local file header")
    return data[:FLIP_AT] + bytes([data[FLIP_AT] ^ FLIP_MASK]) + data[FLIP_AT + 1 :]


def zip_contents(data: bytes) -> dict[str, bytes]:
    """Every file in a zip with its bytes (each entry's CRC-32 checked as it is read)."""
    with zipfile.ZipFile(BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def spark_checksum_matches(data: bytes, crc_text: str) -> bool | None:
    """Whether Spark's `.crc` (JSON: a CRC32C of the whole file as a signed int, and its size)
    matches `data`; None when the text is not one."""
    found = spark_checksum(crc_text)
    if found is None or found[1] is None:
        return None
    value, size = found
    computed = crc32c.crc32c(data)
    signed = computed - (1 << 32) if computed >= 1 << 31 else computed
    return signed == value and size == len(data)


def _flip(stage: Stage, target: Path) -> str:
    before = target.read_bytes()
    after = flipped(before)
    tmp = target.with_name(f".{target.name}.flipping")
    tmp.write_bytes(after)
    tmp.replace(target)  # a rename, so no reader meets half a file
    hidden = target.with_name(f".{target.name}.crc")
    removed = hidden.exists()
    hidden.unlink(missing_ok=True)
    spark_crc = Path(f"{target}.crc")
    matches = (
        (
            spark_checksum_matches(before, spark_crc.read_text(encoding="utf-8")),
            spark_checksum_matches(after, spark_crc.read_text(encoding="utf-8")),
        )
        if spark_crc.exists()
        else None
    )
    same_files = zip_contents(before) == zip_contents(after)
    stage.fact(
        f"{BUG.ticket} flip",
        {
            "zip": target.name,
            "offset": FLIP_AT,
            "byte_before": before[FLIP_AT],
            "byte_after": after[FLIP_AT],
            "size": len(before),
            "files_unchanged": same_files,
            "spark_crc": spark_crc.exists(),
            "crc_matches_before_after": matches,
            "hadoop_crc_removed": removed,
        },
    )
    stage.expect(
        check(
            f"{BUG.ticket}: the flipped zip still opens, its files unchanged",
            same_files,
            "every entry reads back (its CRC-32 holds) with the same bytes",
            "the same files" if same_files else "the files differ",
        ),
    )
    if matches is not None:
        stage.expect(
            check(
                f"{BUG.ticket}: Spark's `.crc` matched the zip, and no longer does",
                matches == (True, False),
                "matched before the flip, not after",
                f"before: {matches[0]}, after: {matches[1]}",
            ),
        )
    crc_said = (
        "Spark's `.crc` beside it: "
        + (
            "matched before, not after"
            if matches == (True, False)
            else f"before {matches[0]}, after {matches[1]}"
        )
        if matches is not None
        else "no Spark `.crc` beside it"
    )
    return (
        f"flipped byte {FLIP_AT} of {target.name} ({before[FLIP_AT]:#04x} -> "
        f"{after[FLIP_AT]:#04x}: the first entry's modification time); the zip opens, "
        f"{'its files unchanged' if same_files else 'its files CHANGED'}; {crc_said}; "
        f"Hadoop's hidden checksum {'removed' if removed else 'was not there'}"
    )


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def count_judged(breaks: list[str]) -> tuple[bool, str]:
    """A restart that went on, the flipped zip loaded or passed over: the count goes on right
    (the files in the zip are the same), so no break after the restart."""
    return not breaks, "; ".join(breaks[:3]) or "no break: every count right"


def _count_after(stage: Stage, from_line: int) -> None:
    breaks = [str(b) for b in stage.output.verify().count_breaks if b.line > from_line]
    stage.fact(f"{BUG.ticket} count breaks after the restart", breaks)
    held, actual = count_judged(breaks)
    stage.say(f"the count after the restart: {actual}")
    stage.expect(
        check(
            f"{BUG.ticket}: the restart went on, the count right",
            held,
            "no break in the output log after the restart (the zip's files were "
            "unchanged, only its bytes; a snapshot passed over is rebuilt from the "
            "changelogs)",
            actual,
        ),
    )


EXHIBIT = Exhibit(BUG, run)
