"""SPARK-51972 (with SPARK-54290 and SPARK-56461): Spark's checksum files beside the state files.

Spark 4.1 wraps the state store's file manager so that every state file gets a checksum of its
own, `<file>.crc` (JSON, visible; Hadoop's local `.<file>.crc` are hidden and another thing),
verified when the file is read back. On checkpoint format 1 a retried batch writes the same
file name again, so a data file and a checksum left by different attempts fail the restart
(SPARK-54290 made a rewrite skip the checksum when the old file had none; SPARK-56461 turned
checksums off for format 1 in 4.2). 4.0 has none.

First a real retry: the app is killed in the middle of a batch, after its state file was
written, and started again, and the exhibit records whether the retry replaced that file and
its `.crc`. As run, it did not: the file manager the app uses (Spark's FileSystemBased one, on
a local disk) keeps a file already in place when its rename finds one, so the dead attempt's
data file and checksum stay together and the restart goes on. A pair from different attempts
needs one of the two renames to land and the other not (a kill between them, or an object
store that took one upload and not the other), too narrow to hit on demand here. So the
exhibit leaves that pair by hand: after two committed batches it lists the checksum files each
line wrote, then puts the state file of the version before (with Hadoop's own checksum, so
Hadoop reads it cleanly) under the newest version's name, keeping Spark's `.crc` of the newest.
A line that verifies refuses the restart; a line that does not loads the older count and goes
on, rewound.

Usage: `python -m scenarios run known-bugs --exhibits SPARK-51972 --fast`
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from scenarios.catalog.museum.exhibit import Exhibit
from scenarios.catalog.museum.restart import (
    RESTART_WATCH,
    exhibit_step,
    restart_after,
    spark_version_of,
)
from scenarios.checker.expectations import check
from scenarios.engine.observers.state_folder import partition_of
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_files import classify, list_state_files, per_version, spark_checksum
from spark_app.lines.known_bug_table import PRESENT, RAN_ON, bug_named, line_of

__all__ = [
    "EXHIBIT",
    "RETRY",
    "STEP",
    "run",
    "spark_checksums",
    "delta_pair",
    "hadoop_crc",
    "checksums_judged",
    "checksum_value",
    "retry_judged",
]

BUG = bug_named("SPARK-51972")


STEP = exhibit_step(
    BUG,
    "checksum files beside the state; a state file from another attempt",
    happens="the app runs on a new checkpoint (HDFS store, format 1, the defaults) until two "
    "batches are committed and stops; the scenario lists Spark's checksum files, then puts "
    "the previous version's delta file under the newest one's name, keeping the newest one's "
    "`.crc`; the app starts again",
    watch="the narration's list of Spark's checksum files (`<v>.delta.crc`, or none); then "
    + RESTART_WATCH,
    why="format 1 names a version's file by its number only, so a retried batch writes the "
    "same names again; if the data file and its checksum come from different attempts, a line "
    "that checks refuses a file a line that does not check loads without a word, and counts "
    "on from the older count",
    question="On the Spark line this run uses: will Spark's `.crc` files be there with format "
    "1, and will the restart stop (which class?) or go on?",
    giveaway=(BUG.when_present, "rewind"),
    checks=(f"{BUG.ticket}: checksum files on format 1",),
)
RETRY = Step(
    f"{BUG.ticket}: a real retry of a batch whose state file was written",
    happens="the app runs on a new checkpoint; the producer sends a negative key, and the app "
    "kills its JVM in the middle of that batch, after the batch's state file was written and "
    "before its commit; the app starts again and replays the batch",
    watch="the app's lines stop in the middle of a batch; the narration's line on the state "
    "file of the replayed version (its inode, bytes and checksum) before the restart, then "
    "after the retry",
    why="format 1 names a version's file by its number only: the retry writes the same name "
    "again; whether that replaces the file is the file manager's choice: as run, the rename "
    "found the file in place and kept it",
    question="Will the restart after the kill fail on the checksum of the state file the killed "
    "attempt left?",
    answer="No, on every line as run: the retry's rename found the file in place and kept it "
    "(same inode, bytes and checksum), so data file and `.crc` still come from one attempt "
    "(checked). A pair from two attempts needs one rename to land and the other not: the step "
    "before left that by hand",
    production="on a local disk (as run) the dead attempt's file and its checksum stay "
    "together; on an object store each is an upload of its own, and one of the pair can land "
    "without the other (SPARK-54290's case)",
    giveaway=("kept it", "same inode", "one attempt"),
    checks=(f"{BUG.ticket}: a real retry leaves a state file its checksum matches",),
)


def run(stage: Stage) -> None:
    lines_before: list[int] = []

    def change(checkpoint: Path) -> str:
        _files_written(stage, checkpoint)
        lines_before.append(_lines(stage.app.folders.output_log))
        return _swap_newest_delta(checkpoint)

    with stage.step(STEP):
        restart = restart_after(stage, BUG, change)
        if restart.outcome == RAN_ON and lines_before:
            _count_after(stage, lines_before[0])
    with stage.step(RETRY):
        _real_retry(stage)


def _real_retry(stage: Stage) -> None:
    """Kill the app after a batch wrote its state, start it again: the retry's rewrite."""
    folder = stage.folders.checkpoints
    stage.app.start()
    stage.output.wait_for_batches(2)
    value = stage.kafka.send_negative_key()
    code = stage.app.wait_exit(kind="crash")
    pending = read_checkpoint(folder).pending_id
    target = partition_of(folder) / f"{(pending or 0) + 1}.delta"
    before = _fingerprint(target)
    stage.say(
        f"killed (exit code {code}) with batch {pending} planned, not committed; "
        f"{target.name}: {_shown(before)}"
    )
    stage.app.start()
    stage.output.wait_for_value(value + 2)
    stage.app.wait_while_up(
        lambda: pending in read_checkpoint(folder).commit_ids or None,
        f"commits/{pending}",
        poll=0.5,
    )
    after = _fingerprint(target)
    stage.app.stop()
    stage.say(f"after the retry, {target.name}: {_shown(after)}")
    stage.fact(
        f"{BUG.ticket} retried file", {"file": target.name, "before": before, "after": after}
    )
    held, actual = retry_judged(pending, before, after)
    stage.expect(
        check(
            f"{BUG.ticket}: a real retry leaves a state file its checksum matches",
            held,
            "the batch committed on the restart; the state file and its "
            "checksum unchanged, or replaced together with the same bytes",
            actual,
        ),
    )
    stage.app.delete_checkpoint()


def retry_judged(
    pending: int | None, before: dict[str, object] | None, after: dict[str, object] | None
) -> tuple[bool, str]:
    """Whether a retried batch left a state file that still matches its checksum: the dead
    attempt's kept as it was, or replaced by the retry with the same bytes and checksum."""
    if pending is None or before is None or after is None:
        return False, f"pending batch {pending}; before {_shown(before)}; after {_shown(after)}"
    kept = before["inode"] == after["inode"] and before["mtime_ns"] == after["mtime_ns"]
    same = before["sha256"] == after["sha256"] and before["checksum"] == after["checksum"]
    how = "kept: the retry did not replace it" if kept else "replaced by the retry"
    spark = "no Spark checksum" if after["checksum"] is None else "Spark's `.crc`"
    return (
        same,
        f"batch {pending}'s file {how}; {'same' if same else 'different'} bytes and "
        f"checksum ({spark})",
    )


def _fingerprint(path: Path) -> dict[str, object] | None:
    """Which write a file is (its inode: a rename puts a new one in place) and what it holds."""
    if not path.exists():
        return None
    crc = Path(f"{path}.crc")
    stat = path.stat()
    return {
        "inode": stat.st_ino,
        "mtime_ns": stat.st_mtime_ns,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest()[:16],
        "checksum": checksum_value(crc.read_text(encoding="utf-8")) if crc.exists() else None,
        "crc_mtime_ns": crc.stat().st_mtime_ns if crc.exists() else None,
    }


def _shown(seen: dict[str, object] | None) -> str:
    if seen is None:
        return "missing"
    spark = (
        f"Spark checksum {seen['checksum']}"
        if seen["checksum"] is not None
        else "no Spark checksum"
    )
    return f"inode {seen['inode']}, mtime_ns {seen['mtime_ns']}, sha256 {seen['sha256']}…, {spark}"


def checksum_value(text: str) -> int | None:
    """The checksum a Spark `.crc` holds (JSON: algorithm, value, mainFileSize, timestampMs,
    creator); None for text that is not one."""
    found = spark_checksum(text)
    return found[0] if found else None


def _files_written(stage: Stage, checkpoint: Path) -> None:
    found = spark_checksums(checkpoint)
    deltas = [
        name
        for names in per_version(list_state_files(partition_of(checkpoint))).values()
        for name in names
    ]
    version = spark_version_of(stage)
    status = BUG.lines.get(line_of(version))
    stage.say(f"Spark's checksum files: {', '.join(found) or 'none'}")
    if found:  # what one holds: JSON, not Hadoop's binary CRC
        stage.say(f"{found[0]}: {(checkpoint / found[0]).read_text(encoding='utf-8')[:300]}")
    stage.fact(f"{BUG.ticket} checksum files", found)
    held, expected, actual = checksums_judged(status, deltas, found)
    stage.expect(check(f"{BUG.ticket}: checksum files on format 1", held, expected, actual))


def spark_checksums(checkpoint: Path) -> list[str]:
    """Spark's own checksum files anywhere in a checkpoint, relative to it: visible `*.crc`
    (Hadoop's local file system hides its own as `.<file>.crc`)."""
    if not checkpoint.is_dir():
        return []
    return sorted(
        p.relative_to(checkpoint).as_posix()
        for p in checkpoint.rglob("*.crc")
        if p.is_file() and not p.name.startswith(".") and classify(p.name).kind == "checksum"
    )


def checksums_judged(
    status: str | None, deltas: list[str], found: list[str]
) -> tuple[bool, str, str]:
    """Whether the checksum files are what the line's status says: one beside every state
    file where the bug is present (checksums on format 1), none anywhere else."""
    state = [f"state/0/0/{name}" for name in deltas]
    beside = [name for name in state if f"{name}.crc" in found]
    actual = f"{len(beside)} of {len(state)} state files with a `.crc`; all: {found or 'none'}"
    if status == PRESENT:
        return (
            bool(state) and len(beside) == len(state),
            "a `<file>.crc` beside every state file (checksums on format 1)",
            actual,
        )
    return not found, "no Spark `.crc` anywhere (no checksums on format 1)", actual


def delta_pair(versions: dict[int, list[str]]) -> tuple[int, int]:
    """The newest version with a delta file and a delta the version before: (older, newer)."""
    deltas = {v for v, names in versions.items() if f"{v}.delta" in names}
    newest = max((v for v in deltas if v - 1 in deltas), default=None)
    if newest is None:
        raise ValueError(f"no two delta files of consecutive versions in {sorted(deltas)}")
    return newest - 1, newest


def hadoop_crc(path: Path) -> Path:
    """Hadoop's own checksum of a local file: hidden, `.<name>.crc` beside it."""
    return path.with_name(f".{path.name}.crc")


def _swap_newest_delta(checkpoint: Path) -> str:
    partition = partition_of(checkpoint)
    older, newer = delta_pair(per_version(list_state_files(partition)))
    source, target = partition / f"{older}.delta", partition / f"{newer}.delta"
    shutil.copyfile(source, target)
    # Hadoop verifies its own hidden checksum first: carry it along so only Spark's can object.
    if hadoop_crc(source).exists():
        shutil.copyfile(hadoop_crc(source), hadoop_crc(target))
    spark_crc = "its `.crc` kept" if Path(f"{target}.crc").exists() else "no Spark `.crc` to keep"
    return f"copied {source.name} over {target} (Hadoop's hidden checksum with it; {spark_crc})"


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _count_after(stage: Stage, from_line: int) -> None:
    """A restart that went on loaded the older delta: its count breaks where it starts."""
    breaks = [b for b in stage.output.verify().count_breaks if b.line > from_line]
    stage.fact(f"{BUG.ticket} count breaks after the restart", [str(b) for b in breaks])
    stage.say(
        "the count after the restart: " + ("; ".join(str(b) for b in breaks[:3]) or "no break")
    )
    stage.expect(
        check(
            f"{BUG.ticket}: the file loaded unchecked rewinds the count",
            any(b.kind == "rewind" for b in breaks),
            "a `rewind`: the restart counts on from the older version's count",
            "; ".join(str(b) for b in breaks[:3]) or "no break",
        ),
    )


EXHIBIT = Exhibit(BUG, run)
