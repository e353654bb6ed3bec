"""The checkpoint's storage fails: torn writes after a power loss, a store that goes away, a full disk.

A checkpoint is only as good as the storage under it. This scenario breaks that storage the
three ways production sees, and shows what `python -m spark_app inspect` says before the
restart, what Spark does on the restart (its error class and the app's one line, or a silent
recovery), and how to get back to exactly once:

- **Torn writes** (a local checkpoint): the power goes out while Spark writes a file. Its name
  reached the disk, its bytes did not, or only some of them: an empty `offsets/N`, a
  `commits/N` cut in half, a state delta cut in half. The scenario stops the app cleanly and
  then tears the file itself, so the tear is exactly the one named.
- **The disk fills** (a local checkpoint, as root): the checkpoint sits on a small tmpfs; a
  file of ours fills it while the app runs; Spark's next checkpoint write fails; space is freed
  and a restart loses nothing.
- **The store goes away** (`--checkpoint-store s3` or `hdfs`): the TCP proxy in front of
  s3proxy (or of the NameNode) is cut while the app runs: S3A rides out a short cut and gives
  up on a long one after minutes, HDFS's client fails at once; then the store is back and a
  restart continues exactly once.

With a user's query (`--query FILE.py`, one that keeps state: a torn state file is one of the
tears) the faults, inspect's words and the restarts are the same: they are the checkpoint's. A
query's rows name no value, so "the app went on" is a new batch in its commit log rather than a
new value in the output log, and the oracle judges the query's rows at the end.

Usage: `python -m scenarios run storage-outage --fast` (torn writes and the full disk);
`python -m scenarios run storage-outage --fast --checkpoint-store s3` (or `hdfs`: the store cut).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import check
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.errors import (
    CheckpointDiskFullError,
    CheckpointStoreLostError,
    TornFileError,
    error_in_text,
)

__all__ = ["SCENARIO", "Restart", "run", "spark_condition", "tear", "crc_of"]

# Spark's condition in its own words: `[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED]`, else the
# first Java exception named (`java.lang.IllegalStateException: …`).
_CONDITION = re.compile(r"\[([A-Z][A-Z0-9_]+(?:\.[A-Z0-9_]+)*)\]")
_JAVA_EXCEPTION = re.compile(r"\b((?:java|org\.apache)\.[\w.]+(?:Exception|Error)):")


def spark_condition(text: str) -> str | None:
    """The error class Spark named in `text` (bracketed), else the first Java exception named."""
    for match in _CONDITION.finditer(text):
        if match.group(1) not in {"WARN", "INFO", "ERROR"}:
            return match.group(1)
    found = _JAVA_EXCEPTION.search(text)
    return found.group(1) if found else None


def crc_of(path: Path) -> Path:
    """Hadoop's checksum file beside `path` (`offsets/.7.crc` for `offsets/7`): the local
    file system Spark writes through (Hadoop's ChecksumFileSystem) keeps one per file."""
    return path.with_name(f".{path.name}.crc")


def tear(path: Path, keep: float) -> tuple[int, int]:
    """Cut `path` to `keep` of its bytes (0: empty, creating it if absent), in place, as a
    power loss leaves a file whose data had not all reached the disk; (bytes before, after)."""
    data = path.read_bytes() if path.exists() else b""
    kept = data[: int(len(data) * keep)]
    path.write_bytes(kept)
    return len(data), len(kept)


@dataclass(frozen=True)
class Restart:
    """What a restart did: went on writing, or exited with a code and a line."""

    continued: bool
    seconds: float
    exit_code: int | None = None
    line: str = ""  # the app's one line, from spark_app/errors.py
    condition: str | None = None  # Spark's error class, or its Java exception

    def words(self) -> str:
        if self.continued:
            return f"continued (new values after {self.seconds:.0f} s)"
        spark = f" (Spark: {self.condition})" if self.condition else ""
        return f"exit {self.exit_code} after {self.seconds:.0f} s{spark}: {self.line[:200]}"


# How long the scenario waits for the app to notice a store that went away before it calls the
# outage ridden out; S3A's own retries (fs.s3a.retry.*, the SDK's) decide when it gives up.
STORE_GONE_WAIT_SEC = 600.0
# Measured on s3proxy behind the proxy (26 Nov 2026, load 12 to 20): a refused store failed
# the query 126 to 140 s after the cut; a cut well inside that is ridden out.
SHORT_STORE_CUT_SEC = 20.0
# The short cut as the steps' words say it (a constant, so the question sheet shows it too).
SHORT_STORE_CUT = f"{SHORT_STORE_CUT_SEC:g} s"


# The checkpoint's own small disk. The filler took 15.8 of its 16 MiB in our runs, the
# checkpoint a few hundred KiB (a 4 KiB page per file at least): room for a longer run too,
# with Spark keeping 100 batches, and still full in a moment.
DISK_MIB = 16


def run(stage: Stage) -> None:
    if stage.settings.checkpoint_store == "local":
        no_disk = _torn_writes(stage)
        if no_disk is None:
            _disk_full(stage)
        else:
            stage.fact("disk_full_skipped", no_disk)
            stage.say(f"the full disk is skipped: {no_disk}")
    else:
        _store_cut(stage)
    with stage.step(
        steps.finish(
            question="After everything that failed under the checkpoint, and the restarts, how "
            "many values will be missing from the output log, or written twice?",
            giveaway=("none:", "every value 1..n"),
        )
    ):
        stage.finish_exactly_once()


# -- the disk fills ----------------------------------------------------------------------------
def _disk_full(stage: Stage) -> None:
    with stage.step(
        Step(
            "The checkpoint's disk fills up while the app runs",
            happens=f"the checkpoint folder is a {DISK_MIB} MiB tmpfs; a file of ours takes "
            "every byte left on it while the app runs; the scenario waits for the app to "
            "notice, then inspect reads the checkpoint",
            watch="the app's batch lines below until they stop, and its last line; then the "
            "narration's `the app exited …` and `inspect exited …` lines",
            why="Spark writes each checkpoint file to a temporary name and renames it; a write "
            "that fails with ENOSPC throws before the rename, so the failed file never gets its "
            "name",
            production="watch the checkpoint volume's free space (and Spark's own retention of "
            "100 batches, minBatchesToRetain); a full disk fails the query at its next "
            "checkpoint write",
            question="When the disk is full, does the query fail, and which error names it? Is "
            "the checkpoint damaged afterwards?",
            answer="It fails at its next checkpoint write with No space left on device, which "
            "the app's line names (CHECKPOINT_DISK_FULL); inspect finds no torn file (all "
            "checked).",
            giveaway=("checkpoint_disk_full", "no space left", "no torn file"),
            checks=(
                "the query fails on the full disk, and the line says so",
                "the failed write left no torn file",
            ),
        )
    ):
        _fill_the_disk(stage)
    with stage.step(
        Step(
            "Free the space and restart the app",
            happens="the filler is removed and the app is started again on the same checkpoint",
            watch="the restarted app's batch lines below, and the offset its first batch starts "
            "from",
            why="the batch that failed is planned or replayed from the checkpoint as after any "
            "crash",
            production="free space, then restart: nothing to repair",
            question="After space is freed, will the restart continue, or must the checkpoint "
            "be repaired first?",
            answer="It continues (checked): nothing to repair. The last step counts every message.",
            giveaway=("it continues", "nothing to repair"),
            checks=("after space was freed the restart continues",),
        )
    ):
        stage.disk.free()
        _continues(stage, "space was freed", "space freed")


def _fill_the_disk(stage: Stage) -> None:
    stage.output.wait_for_more(3)  # the app the torn state's repair started runs on
    before = _progress(stage)
    stage.disk.fill()
    full_at = time.monotonic()
    wait_until(
        lambda: None if stage.app.running else True,
        timeout=STORE_GONE_WAIT_SEC,
        what="the app to meet the full disk",
        progress=stage.waiting,
    )
    seconds = time.monotonic() - full_at
    code = stage.app.wait_exit(kind="crash")
    output = stage.app.output()
    named = error_in_text(output)
    line = str(named) if named else stage.app.last_words()
    stage.fact(
        "disk_full",
        {
            "seconds_to_exit": round(seconds, 1),
            "exit_code": code,
            "line": line[:600],
            "spark": spark_condition(output),
            _after(stage, "full"): _progress(stage) - before,
        },
    )
    stage.say(f"the app exited {code} {seconds:.0f} s after the disk filled: {line[:300]}")
    stage.expect(
        check(
            "the query fails on the full disk, and the line says so",
            code != 0 and isinstance(named, CheckpointDiskFullError),
            f"a non-zero exit with {CheckpointDiskFullError.token}",
            f"exit {code} after {seconds:.0f} s: {line[:200]}",
        )
    )
    code, output = _inspect(stage, "disk full", "--no-state")
    stage.expect(
        check(
            "the failed write left no torn file",
            code == 0 and "a restart will continue" in output,
            "inspect: exit 0, 'a restart will continue'",
            f"exit {code}: {_last_line(output)}",
        )
    )


# -- the store goes away ------------------------------------------------------------------------
def _short_store_cut(stage: Stage) -> bool:
    """The short cut; True when the app rode it out (S3A does; HDFS's client does not)."""
    rides_out = stage.settings.checkpoint_store == "s3"
    if rides_out:
        with stage.step(
            Step(
                f"Cut the S3 store for {SHORT_STORE_CUT}",
                happens=f"the proxy is cut for {SHORT_STORE_CUT}, then lets "
                "connections through again",
                watch="the app's batch lines below, during the cut and after it, and its last "
                "line if it stops",
                why="the checkpoint write that met the cut is still inside S3A's retries when "
                "the store answers again, and then succeeds: Spark never learns of the outage",
                production="a store blip shorter than the client's retry budget costs a slow "
                "batch, nothing else",
                question=f"Will a {SHORT_STORE_CUT} S3 outage make the query fail?",
                answer="No: the app is still running after it and writes new values (checked).",
                giveaway=("still running", "rode out", "rides it out"),
                checks=("the app rode out the short store outage",),
            )
        ):
            how, _ = _cut_briefly(stage)
            stage.expect(
                check(
                    "the app rode out the short store outage",
                    how == "continued",
                    "still running, new values written",
                    how,
                )
            )
    else:
        with stage.step(
            Step(
                f"Cut the HDFS NameNode for {SHORT_STORE_CUT}",
                happens=f"the proxy in front of the NameNode is cut for {SHORT_STORE_CUT}, "
                "then lets connections through again",
                watch="the app's batch lines below, during the cut and after it, and its last line "
                "if it stops",
                why="Hadoop's IPC client does not retry a call whose connection to the NameNode was "
                "reset (java.io.EOFException), and retries a refused one only "
                "ipc.client.connect.max.retries times (10, 1 s apart): the checkpoint write fails "
                "and the query with it",
                production="on HDFS a NameNode blip fails the query: run it supervised (or use an HA "
                "NameNode pair, whose client fails over instead)",
                question=f"Will a {SHORT_STORE_CUT} HDFS outage make the query fail?",
                answer="Yes, within seconds of the cut: the checkpoint write fails, and the app's "
                "line is CHECKPOINT_STORE.UNREACHABLE (checked).",
                giveaway=("checkpoint_store.unreachable", "the checkpoint write fails"),
                checks=("the query fails on a short NameNode outage, and its line says so",),
            )
        ):
            how, exited_after = _cut_briefly(stage)
            code = stage.app.wait_exit(kind="crash")
            named = error_in_text(stage.app.output())
            seconds = exited_after if exited_after is not None else SHORT_STORE_CUT_SEC
            stage.fact(
                "short_store_cut_exit",
                {"seconds_to_exit": round(seconds, 1), "exit_code": code, "line": str(named)[:600]},
            )
            stage.say(
                f"the app exited {code} within {seconds:.0f} s of the cut: {str(named)[:300]}"
            )
            stage.expect(
                check(
                    "the query fails on a short NameNode outage, and its line says so",
                    how == "exited" and isinstance(named, CheckpointStoreLostError),
                    f"an exit with {CheckpointStoreLostError.token}",
                    f"{how}: {str(named)[:200] if named else 'no line'}",
                )
            )
    return rides_out


def _cut_briefly(stage: Stage) -> tuple[str, float | None]:
    """Cut the store for SHORT_STORE_CUT_SEC and restore it; whether the app then "continued"
    or "exited", and how long after the cut it exited, if it did during the cut."""
    stage.store.cut()
    cut_at = time.monotonic()
    end = cut_at + SHORT_STORE_CUT_SEC
    exited_after: list[float] = []

    def over() -> bool:
        if not exited_after and not stage.app.running:
            exited_after.append(time.monotonic() - cut_at)
        return time.monotonic() >= end

    wait_until(
        over,
        timeout=SHORT_STORE_CUT_SEC + 5,
        what="the short store outage",
        progress=stage.waiting,
    )
    before = _progress(stage)
    stage.store.restore()
    how = stage.fact("short_store_cut", _settled(stage, before))
    return how, exited_after[0] if exited_after else None


def _progress(stage: Stage) -> int:
    """How far the app got: the highest value in its output log; with a query, whose rows name
    no value, its newest commits/N (a listing, which a store answers cheaply)."""
    if stage.query is None:
        return stage.output.verify().highest or 0
    return stage.store.newest_batches(stage.folders.checkpoints)[1]


def _after(stage: Stage, fault: str) -> str:
    """The fact that says how far the app got after `fault`: the values it wrote, or with a
    query the batches it committed."""
    return f"written_after_{fault}" if stage.query is None else f"batches_committed_after_{fault}"


def _settled(stage: Stage, before: int, timeout: float | None = None) -> str:
    """ "continued" once the app writes past value `before` (a query: commits a batch past
    `before`), "exited" if it ends first."""

    def settled() -> str | None:
        if not stage.app.running:
            return "exited"
        return "continued" if _progress(stage) > before else None

    return wait_until(
        settled,
        timeout=timeout or stage.timings.spark_start_timeout_sec,
        what="the app to write a new value or to exit",
        progress=stage.waiting,
    )


def _store_cut(stage: Stage) -> None:
    t = stage.timings
    kind = stage.settings.checkpoint_store
    with stage.step(
        steps.start_kafka(
            title=f"Start Kafka, the {kind} checkpoint store behind a proxy, and the Spark app",
            happens=f"the {kind} store starts; the app reaches it only through a TCP proxy of "
            "ours (kafka-outage's), which the next steps cut; the stage reads the checkpoint "
            "through the store's own address",
            watch="the producer's lines and the app's batch lines below; the app's start line "
            "names where its checkpoints are (`checkpoints in s3a://…` or `hdfs://…`)",
            why="every batch writes offsets/N before it runs and commits/N after, on the store",
            production="the checkpoint store is on the path of every batch: its outage is the "
            "query's outage",
            question="Which of the app's writes need the store: the output, the checkpoint, or "
            "both?",
            answer="The checkpoint only: the output log is a local file; but no batch can start "
            "without writing its offsets/N to the store.",
            giveaway=("checkpoint only", "a local file"),
            checks=(),
        )
    ):
        stage.kafka.start(retention_sec=t.endless_retention_sec)
        stage.store.start(behind_proxy=True)
        stage.app.start()
        stage.output.wait_for_value(t.run_for_messages)
    rode_out = _short_store_cut(stage)  # HDFS's client does not: the app is down already
    if rode_out:
        _long_store_cut(stage)
    with stage.step(
        Step(
            "Let the store answer again and restart the app",
            happens="the proxy lets connections through again; the app is started again on the "
            "same checkpoint",
            watch="the restarted app's batch lines below, and the offset its first batch "
            "starts from",
            why="the batch that failed had written offsets/N (or not): either way the restart "
            "replays or plans it from the checkpoint on the store, and the exactly-once sink "
            "keeps each message's lines once",
            production="a store outage costs time, not data, as long as Kafka's retention "
            "outlasts it",
            question="After the store comes back, will the restart continue, or must the "
            "checkpoint be repaired first?",
            answer="Yes, it continues (checked): the checkpoint on the store is whole. The last "
            "step counts every message.",
            giveaway=("yes, it continues", "is whole"),
            checks=("after the store came back the restart continues",),
        )
    ):
        if rode_out:
            stage.store.restore()
        _continues(stage, "the store came back", "store back")


def _long_store_cut(stage: Stage) -> None:
    kind = stage.settings.checkpoint_store
    with stage.step(
        Step(
            f"The {kind} store goes away mid-run, for good",
            happens="the proxy resets every connection between the app and the store and "
            "refuses new ones, as a store whose host went down looks to the app; the producer "
            "goes on; the scenario waits for the app to give up",
            watch="the app's batch lines below stop; later its last line, and when it comes",
            why="S3A retries a failed request (fs.s3a.retry.limit, 7, with backoff from "
            "fs.s3a.retry.interval, 500 ms) around the AWS SDK's own attempts; when they run "
            "out the checkpoint write throws (java.net.ConnectException … Connection refused) "
            "and the query fails: Spark does not retry the driver's checkpoint writes",
            production="alert on a query that makes no progress, not only on one that dies: the "
            "retries keep it silent for minutes first; run it supervised, so it starts again "
            "once the store answers; never delete a checkpoint because its store was away",
            question="When the store stays away, does the query fail, after how long, and with "
            "which error?",
            answer="It fails once S3A's retries run out, minutes later (the time is in the "
            "check); the app's line is CHECKPOINT_STORE.UNREACHABLE, retriable (checked).",
            giveaway=("minutes later", "retries run out"),
            checks=("the query fails once the store is gone, and its line says so",),
        )
    ):
        _store_gone(stage)


def _store_gone(stage: Stage) -> None:
    before = _progress(stage)
    stage.store.cut()
    cut_at = time.monotonic()
    gone = wait_until(
        lambda: None if stage.app.running else True,
        timeout=STORE_GONE_WAIT_SEC,
        what="the app to notice the store is gone",
        progress=stage.waiting,
    )
    seconds = time.monotonic() - cut_at
    code = stage.app.wait_exit(kind="crash")
    output = stage.app.output()
    named = error_in_text(output)
    stage.fact(
        "store_cut",
        {
            "seconds_to_exit": round(seconds, 1),
            "exit_code": code,
            "line": str(named)[:600] if named else stage.app.last_words()[-600:],
            _after(stage, "cut"): _progress(stage) - before,
        },
    )
    stage.say(
        f"the app exited {code} {seconds:.0f} s after the cut: "
        f"{str(named)[:300] if named else stage.app.last_words()[-300:]}"
    )
    stage.expect(
        check(
            "the query fails once the store is gone, and its line says so",
            gone and code != 0 and isinstance(named, CheckpointStoreLostError) and named.retriable,
            f"a non-zero exit with {CheckpointStoreLostError.token}",
            f"exit {code} after {seconds:.0f} s: {str(named)[:200] if named else 'no line'}",
        )
    )


# -- torn writes --------------------------------------------------------------------------------
def _torn_writes(stage: Stage) -> str | None:
    """Start everything on a local checkpoint (on a small disk of its own when this machine
    can mount one) and tear three files; why the disk could not be mounted, or None."""
    t = stage.timings
    with stage.step(
        steps.start_kafka(
            title="Start Kafka, the producer and the Spark app on a local checkpoint",
            happens="the app counts every message; Spark writes offsets/N before each batch, "
            "the state's N+1.delta during it and commits/N after it, each through a temporary "
            "file renamed into place",
            watch="the producer's lines and the app's batch lines below, `batch N: "
            "Experience-0 [from, until) …`",
            why="a rename makes a file appear whole to a running system, but the rename and the "
            "file's bytes reach the disk separately: Hadoop's local file system does not fsync",
            production="a checkpoint on a local disk survives a crash of the app, not a crash "
            "of the machine: keep it on HDFS or an object store",
            question="Spark writes every checkpoint file to a temporary name and renames it: can "
            "a power loss still leave a torn file behind?",
            answer="Yes: nothing forces the bytes to the disk before the rename (no fsync), so "
            "after a power loss the name may be there with no bytes or some of them; the next "
            "steps tear one file each and restart.",
            giveaway=("no fsync", "not fsync"),
            checks=(),
        )
    ):
        no_disk = stage.disk.unavailable()
        if no_disk is None:  # the full disk, later: the checkpoint sits on a small tmpfs
            stage.disk.mount(stage.folders.checkpoints, DISK_MIB)
        stage.kafka.start(retention_sec=t.endless_retention_sec)
        stage.app.start()
        stage.output.wait_for_value(t.run_for_messages)
        _keeps_state(stage)
    _torn_offsets(stage)
    _torn_commit(stage)
    _torn_state(stage)
    return no_disk


def _keeps_state(stage: Stage) -> None:
    """A query that keeps no state has no delta to tear: one line, at once, before any tear."""
    if stage.query is not None and not (stage.folders.checkpoints / "state").is_dir():
        raise StepFailed(
            f"{stage.query.name} keeps no state (its checkpoint has no state/ after its first "
            "batches): storage-outage tears a state file too; run it with a stateful query, "
            "e.g. queries/count_per_key.py"
        )


def _stop_cleanly(stage: Stage) -> int:
    """SIGTERM: the app stops between batches; the last batch it committed."""
    stage.app.stop()
    info = read_checkpoint(stage.folders.checkpoints)
    if info.last_committed_id is None:
        raise AssertionError("the app stopped before it committed a batch")
    return info.last_committed_id


def _inspect(stage: Stage, fact: str, *args: str) -> tuple[int, str]:
    """Run inspect on the checkpoint; record what it says as the fact `<fact>_inspect`."""
    code, output = stage.app.inspect(
        "--checkpoint-dir",
        str(stage.folders.checkpoints),
        *args,
        name=f"inspect-{fact.replace(' ', '-')}",
    )
    lines = [line for line in output.splitlines() if line.strip()]
    verdict = next(
        (
            line.strip()
            for line in reversed(lines)
            if "verdict:" in line or error_in_text(line) is not None
        ),
        lines[-1] if lines else "",
    )
    stage.say(f"inspect exited {code}: {verdict[:300]}")
    stage.fact(f"{fact}_inspect", {"exit_code": code, "says": verdict[:400]})
    return code, output


def _restart(
    stage: Stage, fact: str, timeout: float | None = None, outcome_of: str = "restart"
) -> Restart:
    """Start the app again and wait until it writes a new value or exits, whichever first;
    what it did is the fact `<fact>_<outcome_of>` (`torn offsets_restart`)."""
    before = _progress(stage)
    started = time.monotonic()
    stage.app.start()

    how = _settled(stage, before, timeout)
    seconds = time.monotonic() - started
    if how == "continued":
        outcome = Restart(True, seconds)
    else:
        code = stage.app.wait_exit(kind="crash")
        output = stage.app.output()
        named = error_in_text(output)
        outcome = Restart(
            False,
            seconds,
            code,
            str(named) if named else stage.app.last_words(),
            spark_condition(output),
        )
    stage.say(f"the restart {outcome.words()}")
    stage.fact(
        f"{fact}_{outcome_of}",
        {
            "continued": outcome.continued,
            "seconds": round(outcome.seconds, 1),
            "exit_code": outcome.exit_code,
            "condition": outcome.condition,
            "line": outcome.line[:500],
        },
    )
    return outcome


def _remove(stage: Stage, *paths: Path) -> None:
    for path in paths:
        for file in (path, crc_of(path)):
            file.unlink(missing_ok=True)
    names = ", ".join(str(p.relative_to(stage.folders.checkpoints)) for p in paths)
    stage.timeline.event(f"deleted {names}", "reset")
    stage.say(f"deleted {names} (and Hadoop's .crc beside each)")


def _continues(stage: Stage, what: str, fact: str) -> None:
    """Start the app after the repair and expect it to write new values."""
    outcome = _restart(stage, fact, outcome_of="repaired")
    stage.expect(
        check(
            f"after {what} the restart continues",
            outcome.continued,
            "new values written",
            outcome.words(),
        )
    )


# The torn-file steps' answers also claim the restart after the repair, checked as
# "after deleting offsets/N the restart continues": a name with the run's batch number in it,
# which a Step's `checks`, declared before the step runs, cannot spell.
def _torn_offsets(stage: Stage) -> None:
    with stage.step(
        Step(
            "Power loss while Spark wrote offsets/N+1: the file is there, empty",
            happens="the app is stopped cleanly after batch N; an empty offsets/N+1 is written, "
            "what a power loss leaves when the rename of Spark's next plan reached the disk and "
            "its bytes did not; then inspect, then a restart; then the repair and a restart",
            watch="the narration's `inspect exited …` line; the restarted app's last line, or "
            "its batch lines",
            why="a restart reads the newest offsets/N to know which batch to run; an empty file "
            "has no version line, no batch metadata and no offsets. Spark alone fails at once "
            "too: [STREAM_FAILED] … Failed to read log file …/offsets/N. Incomplete log file",
            production="a torn offsets/N with no commits/N is the plan of a batch that never "
            "ran: deleting it (and its .crc) is safe, Spark plans that batch again",
            question="What will inspect say about the empty offsets/N+1, and will the restart "
            "skip it, or fail, and with which error?",
            answer="Both refuse it with CHECKPOINT_UNUSABLE.TORN_FILE naming offsets/N+1 and the "
            "repair (the app before Spark starts, within seconds); after deleting it the "
            "restart plans the batch again and continues (all checked).",
            giveaway=("torn_file", "refuse"),
            checks=(
                "inspect names the torn file and its repair",
                "the restart refuses the torn file and names its repair",
            ),
        )
    ):
        last = _stop_cleanly(stage)
        torn = stage.folders.checkpoints / "offsets" / str(last + 1)
        tear(torn, keep=0.0)
        stage.timeline.event(f"offsets/{last + 1} empty", "crash")
        stage.say(
            f"offsets/{last + 1} written empty, as a power loss leaves it (batch {last} "
            f"was the last committed)"
        )
        _refused(stage, torn, f"delete offsets/{last + 1}", "torn offsets")
        _remove(stage, torn)
        _continues(stage, f"deleting offsets/{last + 1}", "torn offsets")


def _refused(stage: Stage, torn: Path, repair: str, fact: str) -> None:
    """inspect and the restart both name the torn file and its repair (TornFileError)."""
    name = str(torn.relative_to(stage.folders.checkpoints))
    code, output = _inspect(stage, fact, "--no-state")
    said = error_in_text(output)
    stage.expect(
        check(
            "inspect names the torn file and its repair",
            code != 0
            and isinstance(said, TornFileError)
            and name in str(said)
            and repair in str(said),
            f"a non-zero exit, {TornFileError.token} naming {name}, '{repair}'",
            f"exit {code}: {str(said)[:220] if said else _last_line(output)}",
        )
    )
    outcome = _restart(stage, fact)
    named = error_in_text(outcome.line)
    stage.expect(
        check(
            "the restart refuses the torn file and names its repair",
            not outcome.continued
            and isinstance(named, TornFileError)
            and name in outcome.line
            and repair in outcome.line,
            f"a non-zero exit with {TornFileError.token} naming {name}",
            outcome.words(),
        )
    )


def _last_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1][:220] if lines else "no output"


def _torn_commit(stage: Stage) -> None:
    with stage.step(
        Step(
            "Power loss just after Spark committed batch N: commits/N cut in half",
            happens="the app is stopped cleanly after batch N; commits/N is cut to half its "
            "bytes (Hadoop's .crc beside it kept, as written); then inspect, then a restart; "
            "then the repair and a restart",
            watch="the narration's `inspect exited …` line; the restarted app's last line, or "
            "its batch lines and the offset its first batch starts from",
            why="the commit log says which batches finished; a restart reads the newest "
            "commits/N to decide whether batch N must run again. Spark alone fails at once too: "
            "with the .crc kept, Hadoop's ChecksumException (Checksum error: …/commits/N); "
            "without it Jackson's JsonEOFException; an empty one, Incomplete log file in the "
            "offset commit log",
            production="a torn commits/N belongs to a batch whose output was written: deleting "
            "it makes Spark run batch N again from offsets/N, which only an idempotent sink "
            "survives without duplicates",
            question="Will inspect notice the half commit, and will the restart fail or replay "
            "batch N?",
            answer="Both refuse it with CHECKPOINT_UNUSABLE.TORN_FILE naming commits/N and the "
            "repair (checked); after deleting it batch N is replayed and the exactly-once sink "
            "skips what it had written (the last step checks every message once).",
            giveaway=("skips what", "is replayed"),
            checks=(
                "inspect names the torn file and its repair",
                "the restart refuses the torn file and names its repair",
            ),
        )
    ):
        last = _stop_cleanly(stage)
        torn = stage.folders.checkpoints / "commits" / str(last)
        before, after = tear(torn, keep=0.5)
        stage.timeline.event(f"commits/{last} torn", "crash")
        stage.say(f"commits/{last} cut from {before} to {after} bytes")
        _refused(stage, torn, f"delete commits/{last}", "torn commit")
        _remove(stage, torn)
        _continues(stage, f"deleting commits/{last}", "torn commit")


def _torn_state(stage: Stage) -> None:
    with stage.step(
        Step(
            "Power loss while the state store wrote its delta: N+1.delta cut in half",
            happens="the app is stopped cleanly after batch N; state/0/0/N+1.delta, the count "
            "after batch N, is cut to half its bytes; then inspect, then a restart; then the "
            "repair and a restart",
            watch="the narration's `inspect exited …` line; the restarted app's last line, or "
            "its batch lines",
            why="the HDFS-backed state store rebuilds the count from its newest snapshot and "
            "every delta after it; a delta cut short is an lz4 stream that ends early. Spark "
            "meets it only when the first batch loads the state, and its condition does not "
            "name the file",
            production="a torn state file is repaired by running its batch again: delete the "
            "torn N+1.delta, commits/N and any offsets/ after N; Spark loads version N and "
            "writes N+1 anew",
            question="Will inspect see the torn state, and will Spark's restart fail, when, and "
            "with which error?",
            answer="inspect's verdict is that a restart will fail, naming the file; Spark fails "
            "at its first batch with CANNOT_LOAD_STATE_STORE.UNCATEGORIZED, and the app's line "
            "(CHECKPOINT_UNUSABLE.TORN_FILE) names the file and the repair; after it the count "
            "goes on (all checked).",
            giveaway=("cannot_load_state_store", "uncategorized", "restart will fail"),
            checks=(
                "inspect says the restart will fail and names the torn state file",
                "Spark's restart fails on loading the state",
                "the app's line names the torn file and the repair",
            ),
        )
    ):
        _tear_the_state(stage)


def _tear_the_state(stage: Stage) -> None:
    last = _stop_cleanly(stage)
    delta = stage.folders.checkpoints / "state" / "0" / "0" / f"{last + 1}.delta"
    before, after = tear(delta, keep=0.5)
    stage.timeline.event(f"{last + 1}.delta torn", "crash")
    stage.say(f"state/0/0/{last + 1}.delta cut from {before} to {after} bytes")
    code, output = _inspect(stage, "torn state")
    stage.expect(
        check(
            "inspect says the restart will fail and names the torn state file",
            code == 0
            and "a restart will FAIL" in output
            and f"{delta.name} is cut short" in output,
            f"exit 0, 'a restart will FAIL', '{delta.name} is cut short'",
            f"exit {code}: {_blocker_line(output)}",
        )
    )
    outcome = _restart(stage, "torn state")
    named = error_in_text(outcome.line)
    stage.expect(
        check(
            "Spark's restart fails on loading the state",
            not outcome.continued
            and outcome.condition is not None
            and outcome.condition.startswith("CANNOT_LOAD_STATE_STORE"),
            "a non-zero exit with CANNOT_LOAD_STATE_STORE.…",
            outcome.words(),
        )
    )
    stage.expect(
        check(
            "the app's line names the torn file and the repair",
            isinstance(named, TornFileError)
            and delta.name in outcome.line
            and f"commits/{last}" in outcome.line,
            f"{TornFileError.token} naming {delta.name} and commits/{last}",
            outcome.line[:220] or "no line",
        )
    )
    later = [
        stage.folders.checkpoints / "offsets" / str(n)
        for n in read_checkpoint(stage.folders.checkpoints).offset_ids
        if n > last
    ]
    _remove(stage, delta, stage.folders.checkpoints / "commits" / str(last), *later)
    _continues(stage, f"running batch {last} again", "torn state")


def _blocker_line(output: str) -> str:
    return next(
        (line.strip()[:240] for line in output.splitlines() if "cut short" in line),
        _last_line(output),
    )


SCENARIO = Scenario(
    name="storage-outage",
    title="the checkpoint's storage fails: torn writes after a power loss, a full disk, a store cut",
    summary="Torn writes as a power loss leaves them (an empty offsets/N, a half commits/N, a "
    "half state delta): what inspect says, what Spark's restart does, the repair; a "
    "full disk under the checkpoint; on --checkpoint-store s3 or hdfs the store cut "
    "mid-run. Every message exactly once in the end.",
    origin="production: a checkpoint on failing storage",
    about="a checkpoint's storage failing as production sees it: a power loss in the middle of "
    "a write, a full disk, a store that goes away",
    run=run,
    # Torn files, a full disk and a lost store are the checkpoint's: any stateful query's.
    takes_query=True,
    with_query=(
        "a stateful query: a torn `offsets/N`, `commits/N` and state delta, each refused and "
        "repaired, and a full disk (as root); on `--checkpoint-store s3|hdfs` the store cut "
        "instead; each restart must commit a new batch; the oracle at the end"
    ),
    takes="about 2 min: eight Spark starts, on torn files after a power loss and on a full "
    "disk, each restart checked to continue exactly once",
    checkpoint_stores=("local", "s3", "hdfs"),
)
