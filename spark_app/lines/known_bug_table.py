"""The museum's table: Spark's known checkpoint bugs, what each does on each Spark line.

One table, read by the app's line for a bug it meets (spark_app/lines/known_spark_bugs.py), by the
museum's checks (scenarios/catalog/museum/) and by the docs (docs/spark-versions.md, README's
museum table; tests/test_docs.py holds them to it). Every "observed" below comes from running
the exhibit on that line (docs/spark-versions.md, "The museum", says when and how), not from
JIRA: where a run contradicted the research notes, the run won and the note says so.

A bug's outcome on a restart is what the restart did: the error class it stopped with, or
`RAN_ON` when it went on without one. An exhibit's outcome when the bug is present and when it
is fixed differ, so an observation says which of the two a line has; anything else is a third
behaviour nobody recorded, a regression as much as a fix that went away.

Usage:
    bug = bug_named("SPARK-55058")
    verdict = judge(bug, "4.2.0", observed="STREAMING_CHECKPOINT_MISSING_METADATA_FILE")
    verdict.held, verdict.expected, verdict.actual
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "ABSENT",
    "FIXED",
    "MUSEUM",
    "PRESENT",
    "RAN_ON",
    "SHUFFLES_FOLLOWED",
    "SHUFFLES_PINNED",
    "STATE_ROWS_KEPT",
    "STATE_ROWS_OFF",
    "TIMERS_FIRED",
    "TIMER_NEVER_FIRED",
    "LIST_PUT_FAILED",
    "LIST_READ_BACK",
    "KnownBug",
    "Verdict",
    "bug_named",
    "error_classes_in",
    "judge",
    "line_of",
]

# A restart that went on without an error (the outcome of a bug that fails silently).
RAN_ON = "no error: the query went on"
# A running exhibit's outcomes where nothing stops (SPARK-56400's timers): every timer fired in
# the batch that armed it or the next, or one never did.
TIMERS_FIRED = "every timer fired, in the batch that armed it or the next"
TIMER_NEVER_FIRED = "a timer never fired"
# SPARK-53942's outcomes on a restart asked for more shuffle partitions: the restart's batch ran
# its stateless shuffles at the new number while the state kept the checkpoint's, or every
# shuffle kept the checkpoint's number (as the restart's offsets file records it).
SHUFFLES_FOLLOWED = "stateless shuffles at the new number, the state at the checkpoint's"
SHUFFLES_PINNED = "every shuffle at the checkpoint's number"
# SPARK-53743's outcomes: ListState.put of (i, None) pairs failed in the first batch (pandas
# cast the nullable int column to int32 for Arrow), or the restart's batch read the 100 back,
# every None kept.
LIST_PUT_FAILED = "ListState.put failed on the None (TypeError casting it to int for Arrow)"
LIST_READ_BACK = "the restart's batch read the 100 elements back, every None kept"
# SPARK-53069's outcomes: the restart's first batch reported the rows its state holds
# (numRowsTotal, state operators in the query progress) as the batch before the stop did, the
# state's rows being the same; or another number.
STATE_ROWS_KEPT = "numRowsTotal after the restart as before it"
STATE_ROWS_OFF = "numRowsTotal off after the restart"

# A line's status for a bug.
PRESENT = "present"
FIXED = "fixed"
ABSENT = "absent"  # the line predates the change that brought the bug in


@dataclass(frozen=True)
class KnownBug:
    """One exhibit of the museum: a ticket, what a user meets, and each line's status."""

    ticket: str
    title: str  # what is done to the checkpoint (or what runs), in a few words
    user_sees: str
    workaround: str
    when_present: str  # the restart's outcome where the bug is present: an error class or RAN_ON
    when_fixed: str  # ... and where it is fixed (or absent)
    lines: dict[str, str] = field(default_factory=dict)  # "4.2" -> PRESENT | FIXED | ABSENT
    # A line's own outcome where a run showed it differs in its words from the status's usual
    # one (an older error class for the same fault): "4.0" -> error class.
    seen: dict[str, str] = field(default_factory=dict)
    # Where a run contradicted the research notes, and what the run showed instead.
    correction: str = ""
    # A bug another scenario shows already: its name; the museum names the bug and points there.
    shown_by: str = ""
    needs_connector: bool = False  # only Spark's own Kafka connector has it
    # The same bug filed again under another ticket: the ticket whose exhibit shows it (the
    # alias has no run of its own, and its lines are that ticket's).
    alias_of: str = ""

    def outcome(self, status: str) -> str:
        return self.when_present if status == PRESENT else self.when_fixed

    def by_line(self) -> str:
        """What the table records, line by line, in a sentence: the answer an exhibit reveals."""
        return "; ".join(
            f"{line}: {status} ({self.expected_on(line)})"
            for line, status in sorted(self.lines.items())
        )

    def expected_on(self, line: str) -> str | None:
        """The outcome the table records for `line` (None: the line was never run)."""
        status = self.lines.get(line)
        if status is None:
            return None
        return self.seen.get(line, self.outcome(status))

    def status_of(self, observed: str) -> str | None:
        """Which status an observed outcome is (None: neither the bug's nor the fix's)."""
        for status in (PRESENT, FIXED):
            words = {self.outcome(status)} | {
                o
                for line, o in self.seen.items()
                if (self.lines.get(line) == PRESENT) == (status == PRESENT)
            }
            if observed in words:
                return status
        return None


MUSEUM: tuple[KnownBug, ...] = (
    KnownBug(
        ticket="SPARK-12693",
        title="retention deleted the checkpoint's next offset",
        user_sees="the restart fails on data loss (KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE, "
        "or our source's DATA_LOSS line): the messages Kafka deleted are gone",
        workaround="failOnDataLoss=false to accept the loss, or a new checkpoint; in production, "
        "retention longer than the longest outage",
        when_present="KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE",
        when_fixed=RAN_ON,
        shown_by="short-retention",
    ),
    KnownBug(
        ticket="SPARK-55271",
        title="the 4.1 connector's metrics on a replayed batch",
        user_sees="the first trigger of a restart that replays a pending batch fails with a "
        'NullPointerException in KafkaMicroBatchStream.metrics ("because the return '
        'value of "scala.Option.get()" is null"), after the batch was committed',
        workaround="start the app again (the replayed batch was committed), or run Spark 4.0 "
        "or 4.2",
        when_present="NullPointerException in KafkaMicroBatchStream.metrics",
        when_fixed=RAN_ON,
        lines={"4.0": ABSENT, "4.1": PRESENT, "4.2": FIXED},
        shown_by="state-stores",
        needs_connector=True,
    ),
    KnownBug(
        ticket="SPARK-55058",
        title="the checkpoint's metadata file deleted",
        user_sees="up to 4.1 nothing: the restart makes a new query id and goes on, so a sink "
        "that deduplicates on (query id, batch id) writes batches again; from 4.2 the "
        "restart is refused",
        workaround="keep or restore `metadata` (it holds only the query id); "
        "spark.sql.streaming.checkpoint.verifyMetadataExists.enabled=false restores "
        "the old behaviour on 4.2",
        when_present=RAN_ON,
        when_fixed="STREAMING_CHECKPOINT_MISSING_METADATA_FILE",
        lines={"4.0": PRESENT, "4.1": PRESENT, "4.2": FIXED, "4.3": FIXED},
    ),
    KnownBug(
        ticket="SPARK-54307",
        title="the checkpoint's state/ folder deleted",
        user_sees="the restart fails on the first batch that loads the state; the error names "
        "either a state file it cannot read or, with the fix, the missing state folder",
        workaround="restore state/ from a copy taken with the rest of the checkpoint, or start "
        "over with a new checkpoint (the count restarts)",
        when_present="CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS",
        when_fixed="STREAMING_STATEFUL_OPERATOR_MISSING_STATE_DIRECTORY",
        lines={"4.0": PRESENT, "4.1": PRESENT, "4.2": FIXED, "4.3": FIXED},
        correction="the notes predicted CANNOT_LOAD_STATE_STORE.CANNOT_READ_STREAMING_STATE_FILE "
        "before the fix; 4.0.0 and 4.1.1 on the HDFS store (the app's default) "
        "stopped with CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS "
        "(1.delta, the first file a load from nothing reads)",
    ),
    KnownBug(
        ticket="SPARK-53103",
        title="offsets/ and commits/ deleted, state/ kept (a half-done reset)",
        user_sees="before the fix the restart is a new query on the old state folder: the count "
        "restarts and the new query's files mix with the old ones; with it, the "
        "restart is refused",
        workaround="delete the whole checkpoint folder to reset (state/ included), never only "
        "offsets/ and commits/",
        when_present=RAN_ON,
        when_fixed="STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY",
        lines={"4.0": PRESENT, "4.1": FIXED, "4.2": FIXED, "4.3": FIXED},
        correction="the notes had the fix in 4.2.0 and 4.1 unconfirmed; 4.1.1 refuses too",
    ),
    KnownBug(
        ticket="SPARK-51972",
        title="a state file under another write's checksum (format 1)",
        user_sees="4.1 writes its own checksum `<file>.crc` beside every state file, on "
        "checkpoint format 1 too, where a retried batch writes the same file name "
        "again: a data file and a checksum from different attempts fail the restart "
        "(SPARK-54290, SPARK-56461); 4.2 checksums format 2 only, 4.0 not at all",
        workaround="on 4.1 with format 1, spark.sql.streaming.checkpoint.fileChecksum.enabled="
        "false (what 4.2 does for format 1); a restart already refused by a retry's "
        "file: delete that file's `.crc` so it loads unchecked, or restore the file",
        when_present="CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED",
        when_fixed=RAN_ON,
        lines={"4.0": ABSENT, "4.1": PRESENT, "4.2": FIXED, "4.3": FIXED},
        correction="the notes had a retried batch fail the restart on 4.1; a real retry here "
        "(kill -9 after the state file was written) did not on any line: the retry "
        "kept the dead attempt's delta and `.crc` in place, so they matched; only a "
        "pair from two writes, left by hand, failed it",
    ),
    KnownBug(
        ticket="SPARK-51988",
        title="a byte flipped in the RocksDB snapshot zip a format-2 restart loads",
        user_sees="before the fix the restart loads a snapshot zip that no longer matches the "
        "checksum Spark wrote beside it (`<v>_<id>.zip.crc`) without a word; with it "
        "Spark logs CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED for the zip at ERROR "
        "in spark.log, passes the snapshot over and builds the state without it: the "
        "query goes on, the app prints nothing",
        workaround="restore the zip from a copy taken with the rest of the checkpoint; on a line "
        "that loads it unchecked, compare each zip with its `.crc` (a CRC32C of the "
        "whole file) before a restart, since Spark will not; on one with the fix, "
        "watch spark.log for the checksum error, since the query will not stop",
        when_present=RAN_ON,
        when_fixed="CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED in spark.log; the snapshot "
        "passed over, the query went on",
        lines={"4.0": ABSENT, "4.1": PRESENT, "4.2": FIXED, "4.3": FIXED},
        seen={"4.0": RAN_ON},
        correction="the notes had the restart refused with "
        "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED after the fix; 4.2.0 did not "
        "stop: its check failed on the zip (in spark.log, at ERROR), and its "
        "automatic snapshot repair (spark.sql.streaming.stateStore."
        "autoSnapshotRepair.enabled, on by default) passed the snapshot over and "
        "rebuilt the state from the changelogs; the count went on right",
    ),
    KnownBug(
        ticket="SPARK-56216",
        title="a format-2 snapshot zip cut short, the restart loads it",
        user_sees="a format-2 restart (state store checkpoint ids) that meets a corrupt "
        "snapshot zip fails where nothing repairs it: on 4.0 and 4.1 (no automatic snapshot "
        "repair at all) and, before the fix, on format 2 (the repair served format 1 only); "
        "with it the snapshot is passed over, the state rebuilt from the changelogs, and the "
        "query goes on",
        workaround="restore the zip from a copy taken with the rest of the checkpoint; on a line "
        "without the fix, delete the corrupt zip and its `.crc` so the load rebuilds the "
        "state from an older snapshot and the changelogs",
        when_present="CANNOT_LOAD_STATE_STORE.UNCATEGORIZED",
        when_fixed=RAN_ON,
        # Read in the jars: automatic snapshot repair (its conf) is in 4.2.0's only, and with it
        # the format-2 repair (loadSnapshotWithCheckpointId); 4.0 and 4.1 predate the repair, so
        # a broken zip fails any restart there, whatever the format.
        lines={"4.0": ABSENT, "4.1": ABSENT, "4.2": FIXED},
        seen={
            "4.0": "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED",
            "4.1": "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED",
        },
        correction="the issue had a line whose format-2 snapshots lacked the repair; as run "
        "(29 Nov 2026) none of the served ones has the gap: 4.0.0 and 4.1.1 have no automatic "
        "snapshot repair at all and stop on the cut zip, 4.2.0 has the format-2 repair and "
        "goes on, which is also why SPARK-51988's exhibit went on there",
    ),
    KnownBug(
        ticket="SPARK-51682",
        title="format 2, the offset log a batch ahead of the commit log, a restart",
        user_sees="before the fix a format-2 restart whose newest planned batch has no commit "
        "read no state checkpoint ids and failed its first batch; with it the ids come from "
        "the newest commit and the planned batch replays",
        workaround="a line with the fix (every served one): a guard, no difference expected",
        when_present="a restart refused for want of the state's checkpoint ids",
        when_fixed=RAN_ON,
        # A guard: merged to master and branch-4.0 in April 2025, before 4.0.0.
        lines={"4.0": FIXED, "4.1": FIXED, "4.2": FIXED},
    ),
    KnownBug(
        ticket="SPARK-53942",
        title="a restart asked for more shuffle partitions",
        user_sees="up to 4.0 a restart keeps the checkpoint's spark.sql.shuffle.partitions for "
        "every shuffle, silently; from 4.1 the stateless shuffles run at the new number "
        "while the state stays at the checkpoint's (spark.sql.streaming.internal."
        "stateStore.partitions in the offsets file)",
        workaround="to spread the state itself, repartition it offline (4.2) or start a new "
        "checkpoint; from 4.1 a restart with another spark.sql.shuffle.partitions tunes "
        "only the stateless part of the query",
        when_present=SHUFFLES_FOLLOWED,
        when_fixed=SHUFFLES_PINNED,
        lines={"4.0": ABSENT, "4.1": PRESENT, "4.2": PRESENT},
    ),
    KnownBug(
        ticket="SPARK-53560",
        title="an AvailableNow backfill stopped mid-run, partitions added, a restart",
        user_sees="every restart of the backfill fails at once on the batch the stop left "
        "planned: the partitions it names differ from those Kafka has now (a crash "
        "loop: the same batch, the same error, each time)",
        workaround="start once with a processing-time trigger (it replays the planned batch "
        "and reads the new partitions from offset 0), stop it, then go back to "
        "AvailableNow; or run a line with the fix; add partitions only after a "
        "backfill finished",
        when_present="MISMATCHED_TOPIC_PARTITIONS_BETWEEN_END_OFFSET_AND_PREFETCHED",
        when_fixed=RAN_ON,
        lines={"4.0": PRESENT, "4.1": FIXED, "4.2": FIXED},
        correction="the notes left 4.1 unconfirmed; 4.1.1 has the fix: its restart replayed "
        "the planned batch (then met SPARK-55271 after the commit, and a second "
        "start drained every partition). The connector's exception carries no "
        "bracketed class: the outcome is named by its condition in "
        "kafka-error-conditions.json, found by its message",
        needs_connector=True,
    ),
    KnownBug(
        ticket="SPARK-55561",
        title="Kafka cut at a batch read's first offset look-up",
        user_sees='a batch read of Kafka (spark.read.format("kafka")) fails at its first admin '
        "timeout (a TimeoutException: KAFKA_UNREACHABLE) instead of retrying "
        "fetchOffset.numRetries times: fetchPartitionOffsets calls Kafka's admin once. "
        "A streaming query's look-ups are retried on every line",
        workaround="retry the batch read itself (a job retry, or a loop around the read), or "
        "run a line with the fix; fetchOffset.numRetries does not help there before it",
        when_present="KAFKA_UNREACHABLE",
        when_fixed=RAN_ON,
        lines={"4.0": PRESENT, "4.1": PRESENT, "4.2": FIXED},
        correction="the brief had a fresh query's starting offsets go through "
        "fetchPartitionOffsets; the jars (javap) call it only from "
        "getOffsetRangesFromUnresolvedOffsets, which only batch reads use (KafkaBatch, "
        "KafkaRelation): a stream's first look-ups (fetchEarliestOffsets, "
        "fetchLatestOffsets) are retried on every line, and rode out the same cut on "
        "4.0.0, 4.1.1 and 4.2.0 alike; the exhibit reads once as a batch to reach it",
        needs_connector=True,
    ),
    KnownBug(
        ticket="SPARK-56400",
        title="a transformWithState timer due at or before its batch's time",
        user_sees="with SPARK-56400's lower bound on the timer scan (the previous batch's "
        "time, exclusive), a processing-time timer registered at or before that time "
        "is never scanned: handleExpiredTimer is never called for it and the query "
        "goes on as if it had none; SPARK-56566 took the bound out again",
        workaround="register a timer after the batch's own time (getCurrentProcessingTimeInMs() "
        "+ at least 1 ms), never at or before it; on a line with the bound, handle "
        "at once in handleInputRows what is due already",
        when_present=TIMER_NEVER_FIRED,
        when_fixed=TIMERS_FIRED,
        # A guard: as run (26 Nov 2026) every timer fired on the four lines; which of them
        # predate the bound and which have SPARK-56566's code is read in their jars.
        lines={"4.0": ABSENT, "4.1": ABSENT, "4.2": FIXED, "4.3": FIXED},
    ),
    KnownBug(
        ticket="SPARK-53743",
        title="a transformWithState list of 100 (i, None) pairs, put and read back",
        user_sees="PySpark's ListState.put of elements with a None in a nullable int field "
        "fails the batch with a TypeError from pandas (int() of a NoneType): the list went "
        "to Spark through Arrow, and the conversion cast the column to int32 first",
        workaround="a line with the fix; before it, clear the list and add its elements one "
        "by one with appendValue (sent without Arrow), or keep None out of its int fields "
        "(put and appendList send the whole list through Arrow, on 4.0 whatever its size)",
        when_present=LIST_PUT_FAILED,
        when_fixed=LIST_READ_BACK,
        # As run (29 Nov 2026): 4.0.0 failed the first batch; 4.1.1 and 4.2.0 read the 100
        # back before the stop and after the restart.
        lines={"4.0": PRESENT, "4.1": FIXED, "4.2": FIXED},
        correction="the ticket had the Arrow path taken for a list large enough only; 4.0.0 "
        "sends every put and appendList through it (its wheel's list_state_client.py), and "
        "its cast failed on one such element as on 100 (the cast tried alone); the app's line "
        "for the failure named the checkpoint (CHECKPOINT_UNUSABLE), which was fine",
    ),
    KnownBug(
        ticket="SPARK-53069",
        title="transformWithState's state rows counted across a restart (RocksDB, changelogs)",
        user_sees="after a restart the query progress's numRowsTotal (and the custom "
        "metrics beside it) of a transformWithState operator no longer counts the rows its "
        "state holds: the changelog replay on load counted every key under RocksDB's "
        "default column family instead of its state variable's",
        workaround="a line with the fix; before it, do not alert or size on numRowsTotal of "
        "a transformWithState operator after a restart (the State Data Source counts the "
        "rows as they are)",
        when_present=STATE_ROWS_OFF,
        when_fixed=STATE_ROWS_KEPT,
        # As run (29 Nov 2026): 4.0.0 reported 5 rows before the stop and 9 after the restart;
        # 4.1.1 and 4.2.0 5 and 5.
        lines={"4.0": PRESENT, "4.1": FIXED, "4.2": FIXED},
        correction="the ticket reads as any transformWithState state; as run, a restart of "
        "value, list and map rows alone counted right on 4.0.0 too: the replay miscounts "
        "keys of internal families (a timer per batch here), which it counts as the user's "
        "rows",
    ),
    KnownBug(
        ticket="SPARK-57489",
        title="a five-column dropDuplicates moved from Classic to Spark Connect",
        user_sees="the same query restarted on its checkpoint under the other API is refused "
        "on its state key (STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE): Classic orders five or "
        "more dropDuplicates columns as a Scala Set does, Connect as written; with key "
        "columns of one type it runs on and deduplicates on the wrong columns",
        workaround="keep a stateful job on the API its checkpoint was written under; before "
        "moving one to Spark Connect, compare the state key's column order "
        "(state/0/0/_metadata/schema) under both; on 4.3, "
        "spark.sql.dropDuplicates.deterministicKeyOrder.enabled for new checkpoints",
        when_present="STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
        when_fixed=RAN_ON,
        # As run (29 Nov 2026), on Spark's connector: Classic's key was (group_double,
        # group_even, group_long, group_int, group_text) on all three lines; 4.3.0 on our
        # source kept the order written.
        lines={"4.0": PRESENT, "4.1": PRESENT, "4.2": PRESENT, "4.3": FIXED},
        correction="the issue had 4.3.0's fix behind a flag to switch on; as run, 4.3.0 "
        "ordered Classic's key as written with no setting: its jar describes "
        "spark.sql.dropDuplicates.deterministicKeyOrder.enabled as on for newly started "
        "queries and pinned in the offset log at batch 0, so a checkpoint from before "
        "it keeps its old order",
    ),
)


def _alias(ticket: str, of: KnownBug, filed: str) -> KnownBug:
    """The same bug filed again: the original's title, lines and exhibit, named as an alias."""
    return KnownBug(
        ticket=ticket,
        title=f"an alias of {of.ticket}: {of.title}",
        user_sees=f"{of.user_sees} ({filed})",
        workaround=of.workaround,
        when_present=of.when_present,
        when_fixed=of.when_fixed,
        lines=dict(of.lines),
        seen=dict(of.seen),
        shown_by=of.shown_by,
        needs_connector=of.needs_connector,
        alias_of=of.ticket,
    )


# SPARK-57438 (apache/spark#56526) is SPARK-55271's NPE filed again, with a fix of its own.
MUSEUM += (
    _alias(
        "SPARK-57438",
        next(b for b in MUSEUM if b.ticket == "SPARK-55271"),
        "filed again as SPARK-57438, apache/spark#56526",
    ),
)


def bug_named(ticket: str) -> KnownBug:
    found = next((b for b in MUSEUM if b.ticket == ticket), None)
    if found is None:
        raise KeyError(
            f"no exhibit {ticket} in the museum; known: {', '.join(b.ticket for b in MUSEUM)}"
        )
    return found


def line_of(version: str) -> str:
    """A Spark version's line: "4.1.1" -> "4.1"."""
    return ".".join(version.split(".")[:2])


@dataclass(frozen=True)
class Verdict:
    """An exhibit's outcome on one Spark version, held against the table."""

    ticket: str
    version: str
    held: bool
    expected: str
    actual: str
    status: str | None  # what the observation is: PRESENT, FIXED, or None (neither)


def judge(bug: KnownBug, version: str, observed: str) -> Verdict:
    """Whether `observed` (an error class, or RAN_ON) is what the table says `version` does."""
    status = bug.status_of(observed)
    seen = "present" if status == PRESENT else "fixed" if status == FIXED else "neither"
    actual = f"{seen} on Spark {version}: {observed}"
    expected_status = bug.lines.get(line_of(version))
    if expected_status is None:
        return Verdict(
            bug.ticket,
            version,
            False,
            f"a status recorded for the {line_of(version)} line (none yet: run the "
            f"exhibit there and record it in spark_app/lines/known_bug_table.py)",
            actual,
            status,
        )
    wanted = bug.expected_on(line_of(version))
    if observed == wanted:
        # The outcome alone cannot tell a line that never had the bug from one that fixed it
        # (both run on); the table can, so a held verdict names the line's status from it.
        actual = f"{expected_status} on Spark {version}: {observed}"
    return Verdict(
        bug.ticket, version, observed == wanted, f"{expected_status}: {wanted}", actual, status
    )


# Spark's error classes as its messages start them: `[STATE_STORE_CHECKPOINT_LOCATION_NOT_EMPTY]`
# or, inside a wrapper's text, `CANNOT_LOAD_STATE_STORE.CANNOT_READ_STREAMING_STATE_FILE`.
_BRACKETED = re.compile(r"\[([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?:\.[A-Z0-9_]+)*)\]")
# Classes that wrap the one that matters (foreachBatch's job carries the state store's error).
_WRAPPERS = frozenset({"FOREACH_BATCH_USER_FUNCTION_ERROR", "STREAM_FAILED"})


def error_classes_in(text: str, known: tuple[str, ...] = ()) -> list[str]:
    """Spark's error classes in `text`: first those of `known` found anywhere in it (the app's
    line names a class inside a sentence), then every bracketed one, wrappers left out."""
    found = [k for k in known if k != RAN_ON and re.search(rf"\b{re.escape(k)}\b", text)]
    for name in _BRACKETED.findall(text):
        if name not in _WRAPPERS and name not in found:
            found.append(name)
    return found
