"""Three state stores, one stream: what each writes per batch, how it recovers, and why the
store of a checkpoint cannot be switched.

The same count runs on HDFS (Spark's default), on RocksDB, and on RocksDB with changelog
checkpointing, each on a checkpoint of its own. The scenario lists `state/0/0/` by state
version: a `.delta` per batch and a `.snapshot` now and then (HDFS); a `.zip` per batch and
shared SST files (RocksDB); a `.changelog` per batch and a `.zip` every few (changelog). Each
app is killed with kill -9 and restarted: the files its next batch loads, the batch it
replays, the time until it writes again, and every message still counted once. Last, the
HDFS checkpoint is restarted with `--state-store rocksdb`: Spark keeps HDFS, pinned in the
offset log, and only warns.

With a user's query (`--query FILE.py`, one that keeps its state in one operator:
queries/count_per_key.py, queries/sessions.py) each of the three apps runs it: the files, the
kills, the restarts and the switch are the store's. A query's rows name no value, so each
checkpoint's first offset stands for the first value, the first commit after a restart for the
first write, and the oracle judges each app's rows against the query over every record up to
its checkpoint's last commit: once per store (three Spark starts of its own).

Usage: `python -m scenarios run state-stores --fast`
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from scenarios.catalog import steps
from scenarios.checker.expectations import check, equals, exactly_once, rows_until_last_commit
from scenarios.engine.observers.state_folder import (
    cadence,
    listed_state_files,
    partition_of,
    snapshot_every,
)
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_data_source import files_to_load
from spark_app.checkpoint.state_files import StateFile, per_version, snapshot_versions
from spark_app.lines.batch_line import parse_batch_lines
from spark_app.runtime.state_store import PROVIDER_CLASSES, PROVIDER_CONF

__all__ = ["SCENARIO", "STORES", "Store", "layout_problems", "load_problems", "run"]

# Spark's WARN when the offset log overrules the session (OffsetSeqMetadata, word for word).
PINNED_WARN = f"Updating the value of conf '{PROVIDER_CONF}' in current session"


@dataclass(frozen=True)
class Store:
    """One store of the three: its name (and folder), the app's options, what a batch writes."""

    name: str
    title: str
    options: dict[str, Any] = field(default_factory=dict)
    per_batch: str = "delta"  # the kind every version has
    snapshot: str = "snapshot"  # the kind of a full snapshot
    every_batch_snapshot: bool = False  # RocksDB without changelog: a zip each batch


HDFS = Store("hdfs", "HDFS", {"state_store": "hdfs"})
ROCKSDB = Store(
    "rocksdb",
    "RocksDB",
    {"state_store": "rocksdb"},
    per_batch="zip",
    snapshot="zip",
    every_batch_snapshot=True,
)
CHANGELOG = Store(
    "rocksdb-changelog",
    "RocksDB with changelog checkpointing",
    {"state_store": "rocksdb", "changelog_checkpointing": True},
    per_batch="changelog",
    snapshot="zip",
)
STORES = (HDFS, ROCKSDB, CHANGELOG)

# -- the steps, one pair per store: its words are its own, so the question sheet shows them -------
# The snapshot cadence the words name: Spark's default, and --fast's (observers/state_folder.py).
_EVERY = "10 by default, 3 with --fast"
_FILES_QUESTION = "Which files will each batch write in the state folder, and how often a snapshot?"
_FILES_WHY = (
    "the store decides what a batch costs to checkpoint and what a restart must read: a "
    "snapshot is the whole state, a delta or changelog only what one batch changed"
)
_FILES_WATCH = (
    "the app's batch lines while the versions pile up; then the narration's lines, one per "
    "state version, `<store> v3 (batch 2): …`: the files that version has"
)
_FILES_CHECK = "the files per batch are the store's"
_RELOAD_WHY = (
    "recovery = load the latest snapshot at or below the committed version, replay the "
    "deltas/changelogs after it, then re-run the uncommitted batch with the same offsets; the "
    "exactly-once sink drops what that batch had half written"
)
_RELOAD_HAPPENS = (
    "kill -9 of the app's process group while a batch is in flight (planned in the offset log, "
    "not yet committed); then the same command again on the same checkpoint"
)
_RELOAD_WATCH = (
    "the app's batch lines stop; the narration names the files the next batch loads and the "
    "batch in flight; then the restarted app's first batch line, and the seconds until it "
    "writes again"
)
_RELOAD_CHECKS = (
    "the files the restart loads are on disk",
    "the restart runs the batch after the last commit first",
    "exactly once",
)

_START_KAFKA = steps.start_kafka(
    happens="a broker and the producer; the topic keeps everything; three apps will read it in "
    "turn, each on a checkpoint of its own",
    why="the same input for every store, so only the store differs",
    question="Three apps will read this topic in turn, each on a new checkpoint of its own: "
    "which value will each write first?",
    answer="1, each: a new checkpoint starts at startingOffsets (earliest), so all three count "
    "the same messages from the start and only the store differs (checked for each).",
    production="to compare settings on real data, run them on separate checkpoints over the "
    "same input, never one after the other on one checkpoint",
    giveaway=("1, each", "counts from 1", "value 1"),
    checks=tuple(f"{s.name} writes value 1 first" for s in STORES),
)
_HDFS_FILES = Step(
    "HDFS: the same stream on a new checkpoint",
    happens="the app starts with --state-store hdfs and runs until its state has two snapshots",
    watch=_FILES_WATCH,
    why=_FILES_WHY,
    production="HDFS keeps the whole state in executor memory: fine while the state fits",
    question=_FILES_QUESTION,
    answer="Each batch writes `<v>.delta` (the keys it changed); background maintenance writes "
    f"a full `<v>.snapshot` once minDeltasForSnapshot deltas have piled up, {_EVERY} "
    "(checked: the files per batch are the store's).",
    giveaway=("delta", "piled up"),
    checks=(_FILES_CHECK,),
)
_HDFS_RELOAD = Step(
    "HDFS: kill -9 and restart",
    happens=_RELOAD_HAPPENS,
    watch=_RELOAD_WATCH,
    why=_RELOAD_WHY,
    production="recovery time grows with the deltas since the last snapshot: "
    "minDeltasForSnapshot trades upload size against replay on restart",
    question="After kill -9 mid-batch, which files will the restart load, and will any message "
    "be lost or doubled?",
    answer="The next batch loads the newest `.snapshot` at or below its version and each "
    "`.delta` after it (checked: on disk); the uncommitted batch runs again first (checked); "
    "nothing is lost or doubled (checked).",
    giveaway=("newest", "runs again", "nothing is lost"),
    checks=_RELOAD_CHECKS,
)
_ROCKSDB_FILES = Step(
    "RocksDB: the same stream on a new checkpoint",
    happens="the app starts with --state-store rocksdb and runs until its state has two snapshots",
    watch=_FILES_WATCH,
    why=_FILES_WHY,
    production="RocksDB keeps the state on the executor's local disk, for state bigger than "
    "memory; each batch uploads only the data files that are new",
    question=_FILES_QUESTION,
    answer="Each batch uploads a whole snapshot `<v>.zip` (RocksDB's small files and the list of "
    "its data files) and the new `SSTs/*.sst` data files: a snapshot every batch (checked: "
    "the files per batch are the store's).",
    giveaway=("whole snapshot", "sst", "every batch"),
    checks=(_FILES_CHECK,),
)
_ROCKSDB_RELOAD = Step(
    "RocksDB: kill -9 and restart",
    happens=_RELOAD_HAPPENS,
    watch=_RELOAD_WATCH,
    why=_RELOAD_WHY,
    production="a restart of RocksDB downloads one zip and the SST files it lists that the "
    "executor does not have yet: on a new executor, all of them",
    question="Every RocksDB version is a whole `.zip`: which state files will the restart load?",
    answer="A single `.zip`, of the version the last commit left (checked: on disk); the "
    "uncommitted batch runs again first, and every message is still counted once (checked).",
    giveaway=("a single",),
    checks=_RELOAD_CHECKS,
)
_CHANGELOG_FILES = Step(
    "RocksDB with changelog checkpointing: the same stream on a new checkpoint",
    happens="the app starts with --state-store rocksdb --changelog-checkpointing and runs "
    "until its state has two snapshots",
    watch=_FILES_WATCH,
    why=_FILES_WHY,
    production="changelog checkpointing makes each batch's upload small, which matters on "
    "object storage",
    question=_FILES_QUESTION,
    answer="Each batch writes only `<v>.changelog` (the keys it changed); a snapshot `<v>.zip` + "
    f"SSTs follows every minDeltasForSnapshot versions ({_EVERY}), uploaded by background "
    "maintenance (checked: the files "
    "per batch are the store's).",
    giveaway=("writes only", "follows every"),
    checks=(_FILES_CHECK,),
)
_CHANGELOG_RELOAD = Step(
    "RocksDB with changelog checkpointing: kill -9 and restart",
    happens=_RELOAD_HAPPENS,
    watch=_RELOAD_WATCH,
    why=_RELOAD_WHY,
    production="recovery time grows with the changelogs since the last snapshot: "
    "minDeltasForSnapshot trades upload size against replay on restart",
    question="With changelogs, which state files will the restart load?",
    answer="The newest `.zip` at or below the next batch's version, then each `.changelog` after "
    "it (checked: on disk); the uncommitted batch runs again first, and every message is "
    "still counted once (checked).",
    giveaway=("each `.changelog` after",),
    checks=_RELOAD_CHECKS,
)
_SWITCH = Step(
    "Restart the HDFS checkpoint with --state-store rocksdb",
    happens="the app starts on the HDFS checkpoint asking for RocksDB, runs a few batches and "
    "is stopped",
    watch="the app's first lines, before Spark starts and after; then its batch lines",
    why="the provider is pinned in offsets/N when the checkpoint is created: RocksDB could not "
    "read HDFS's deltas, so Spark re-imposes the pinned value and only warns",
    production="to change the store, start a new checkpoint: read the old state with the State "
    "Data Source (`python -m spark_app inspect --state-source`), seed it "
    "(transformWithState's initialState) and start Kafka at the old checkpoint's offsets "
    "(JSON startingOffsets); or start over, if the state can be rebuilt",
    question="Asked for RocksDB on an HDFS checkpoint, which store will write the new batches?",
    answer="HDFS: the app notes that Spark keeps hdfs, spark.log warns that the offset log "
    "overrules the session, the new versions are `.delta` files and offsets/N still pins "
    "HDFS, every message once (all checked).",
    giveaway=("pinned", "pins", "keeps hdfs", "overrules", "re-imposes"),
    checks=(
        "the app says the checkpoint keeps HDFS",
        "Spark warns that the offset log overrules the session",
        "the new batches were written by HDFS",
        "the newest offsets/N still pins HDFS",
        "exactly once",
    ),
)


def run(stage: Stage) -> None:
    every = stage.fact("snapshot_every", snapshot_every(stage.settings.fast))
    with stage.step(_START_KAFKA):
        stage.kafka.start()
    with stage.step(_HDFS_FILES):
        hdfs = _files_per_batch(stage, HDFS, every)
    with stage.step(_HDFS_RELOAD):
        _kill_and_recover(stage, hdfs, HDFS)
    with stage.step(_ROCKSDB_FILES):
        rocksdb = _files_per_batch(stage, ROCKSDB, every)
    with stage.step(_ROCKSDB_RELOAD):
        _kill_and_recover(stage, rocksdb, ROCKSDB)
    with stage.step(_CHANGELOG_FILES):
        changelog = _files_per_batch(stage, CHANGELOG, every)
    with stage.step(_CHANGELOG_RELOAD):
        _kill_and_recover(stage, changelog, CHANGELOG)
    with stage.step(_SWITCH):
        _switch_provider(stage, hdfs)


def _files_per_batch(stage: Stage, store: Store, every: int) -> AppPart:
    """Run the count on `store` on a new checkpoint, until it shows its snapshots; check the
    files per batch, and (for the first step's question) the value it wrote first."""
    app = stage.app.beside(store.name, narrated=True)
    app.start(**store.options, **cadence(stage.settings.fast))
    if stage.query is not None:
        _keeps_state(stage, app)
    files = _wait_for_snapshots(stage, app, store, every)
    if stage.query is None:
        first = stage.output.of(app).verify().first_value
        stage.expect(
            equals(f"{store.name} writes value 1 first", first, 1, lambda v: f"value {v} first"),
            step=_START_KAFKA,
        )
    else:  # a query's rows name no value: where its checkpoint began reading stands for it
        starts = read_checkpoint(app.checkpoint_view()).initial_offsets or {}
        stage.expect(
            check(
                f"{store.name} starts at the topic's first offset",
                bool(starts) and not any(starts.values()),
                "offset 0 in every partition",
                ", ".join(f"{tp} {offset}" for tp, offset in sorted(starts.items())) or "none",
            ),
            step=_START_KAFKA,
        )
    _show_files(stage, store, files, every)
    return app


def _keeps_state(stage: Stage, app: AppPart) -> None:
    """A query that keeps no state has no state files to show: one line once its first batch
    is committed, instead of a wait for state versions that never come."""
    stage.output.of(app).wait_for_value(1)
    if not any(name.startswith("state/") for name in stage.store.files(app.folders.checkpoints)):
        assert stage.query is not None
        raise StepFailed(
            f"{stage.query.name} keeps no state (its checkpoint has no state/ after its first "
            "batch): state-stores shows a query's state files; run it with a stateful query, "
            "e.g. queries/sessions.py"
        )


def _judge_up_to_the_commit(stage: Stage, app: AppPart) -> None:
    """With a query: the oracle judges `app`'s rows against the query over every record up to
    its checkpoint's last commit (the records sent after it, it never read)."""
    verdict = stage.output.of(app).judge_query_until_last_commit()
    stage.expect(rows_until_last_commit("exactly once", verdict))


def _state_files(stage: Stage, app: AppPart) -> list[StateFile]:
    """The count's state files, listed wherever the checkpoint is (a store: its listing)."""
    return listed_state_files(stage.store.files(app.folders.checkpoints))


def _wait_for_snapshots(stage: Stage, app: AppPart, store: Store, every: int) -> list[StateFile]:
    """Wait until the store has run 2 x `every` + 1 versions and shown two snapshots (one with
    Spark's 60 s maintenance, which writes the next only a minute later)."""
    wanted, snapshots = 2 * every + 1, 2 if stage.settings.fast else 1

    def enough() -> list[StateFile] | None:
        files = _state_files(stage, app)
        versions = [f.version for f in files if f.kind == store.per_batch and f.version]
        return (
            files
            if max(versions, default=0) >= wanted and len(snapshot_versions(files)) >= snapshots
            else None
        )

    # Maintenance writes HDFS and changelog snapshots: up to one interval after they are due.
    return app.wait_while_up(
        enough,
        f"{wanted} state versions and {snapshots} snapshot(s) from {store.name}",
        timeout=stage.timings.spark_start_timeout_sec + 3 * 60,
    )


def _show_files(stage: Stage, store: Store, files: list[StateFile], every: int) -> None:
    table = per_version(files)
    snapshots = snapshot_versions(files)
    # The first versions, then each of the first snapshots with the version after it.
    shown = sorted({1, 2, 3, *(v + d for v in snapshots[:2] for d in (0, 1))} & table.keys())
    for version in shown:
        stage.say(f"{store.name} v{version} (batch {version - 1}): {', '.join(table[version])}")
    ssts = sum(1 for f in files if f.kind == "sst")
    at = (
        f"{snapshots}"
        if len(snapshots) <= 6
        else f"[{snapshots[0]}, {snapshots[1]}, … {snapshots[-1]}] ({len(snapshots)})"
    )
    stage.say(f"{store.name}: {len(table)} versions, snapshots at {at}, {ssts} SST files")
    stage.fact(f"{store.name}_files_per_version", {str(v): table[v] for v in shown})
    stage.fact(f"{store.name}_versions", len(table))
    stage.fact(f"{store.name}_snapshot_versions", snapshots)
    stage.fact(f"{store.name}_sst_files", ssts)
    problems = layout_problems(store, files, every)
    stage.expect(
        check(
            "the files per batch are the store's",
            not problems,
            _expected_layout(store, every),
            "; ".join(problems) or "as expected",
        ),
    )


def _expected_layout(store: Store, every: int) -> str:
    if store.every_batch_snapshot:
        return "a .zip for every version, SST files, no .delta or .changelog"
    extra = "SST files" if store.snapshot == "zip" else "no .zip or SST"
    return (
        f"a .{store.per_batch} for every version; .{store.snapshot} only at some, "
        f"at least {every} versions apart; {extra}"
    )


def layout_problems(store: Store, files: list[StateFile], every: int) -> list[str]:
    """What in a partition folder's files does not fit the store (empty: it fits)."""
    kinds = {f.kind for f in files}
    versions = {f.version for f in files if f.kind == store.per_batch and f.version}
    problems = []
    if not versions or versions != set(range(1, max(versions) + 1)):
        problems.append(f"versions with a .{store.per_batch}: {sorted(versions)}")
    foreign = kinds & {"delta", "snapshot", "zip", "changelog"} - {store.per_batch, store.snapshot}
    if foreign:
        problems.append(f"unexpected kinds {sorted(foreign)}")
    if ("sst" in kinds) != (store.snapshot == "zip"):
        problems.append("SST files " + ("missing" if store.snapshot == "zip" else "present"))
    if not store.every_batch_snapshot:
        snapshots = snapshot_versions(files)
        gaps = [b - a for a, b in zip([0, *snapshots], snapshots)]
        if not snapshots or min(gaps) < every:
            problems.append(f"snapshots at {snapshots} (gaps {gaps}, expected >= {every})")
    return problems


def load_problems(store: Store, loads: list[str]) -> list[str]:
    """What in the files a restart loads (`files_to_load`) does not fit the store (empty: it
    fits): one zip for RocksDB; else a snapshot (or version 1), then one file per version."""
    if not loads:
        return ["nothing to load"]
    problems = [f"{name} is not on disk" for name in loads if name.endswith("(missing)")]
    if store.every_batch_snapshot:
        if len(loads) != 1 or not loads[0].endswith(".zip"):
            problems.append("not a single .zip")
        return problems
    head, rest = loads[0], loads[1:]
    if not (head.endswith(f".{store.snapshot}") or head == f"1.{store.per_batch}"):
        problems.append(f"starts at {head}, neither a .{store.snapshot} nor version 1")
    problems += [
        f"{name}: not a .{store.per_batch}"
        for name in rest
        if not name.endswith(f".{store.per_batch}") and not name.endswith("(missing)")
    ]
    return problems


def _kill_and_recover(stage: Stage, app: AppPart, store: Store) -> None:
    """kill -9 mid-batch, say what the restart loads and replays, restart, check."""
    _kill_mid_batch(stage, app)
    view = app.checkpoint_view()  # on a store, a copy read through its API
    info = read_checkpoint(view)
    committed = info.last_committed_id if info.last_committed_id is not None else -1
    loads = files_to_load(partition_of(view), committed + 1)
    replayed = info.pending_id
    problems = load_problems(store, loads)
    stage.expect(
        check(
            "the files the restart loads are on disk",
            not problems,
            "a single .zip"
            if store.every_batch_snapshot
            else f"a .{store.snapshot} (or version 1), then a .{store.per_batch} per version",
            ", ".join(loads) + (f" ({'; '.join(problems)})" if problems else ""),
        )
    )
    stage.say(
        f"{store.name}: batch {committed + 1} loads {', '.join(loads) or 'nothing'}; "
        + (
            f"batch {replayed} was planned, not committed: it is replayed"
            if replayed is not None
            else "no batch was in flight"
        )
    )
    output = stage.output.of(app)
    before = output.verify().messages
    started = time.monotonic()
    app.start(**store.options, **cadence(stage.settings.fast))
    if stage.query is None:
        output.wait_for_messages(before + 1)
    else:  # a query's first write after the restart: the first batch its checkpoint commits
        output.wait_for_more(1)
    seconds = round(time.monotonic() - started, 1)
    output.wait_for_batches(1)
    first = parse_batch_lines(app.output())
    stage.expect(
        equals(
            "the restart runs the batch after the last commit first",
            first[0].batch_id if first else None,
            committed + 1,
            lambda b: f"batch {b}",
        )
    )
    stage.fact(
        f"{store.name}_recovery",
        {
            "seconds_to_first_write": seconds,
            "loaded": loads,
            "replayed_batch": replayed,
            "first_batch_ms": first[0].duration_ms if first else None,
            "first_batch_rows": first[0].rows if first else None,
        },
    )
    stage.say(
        f"{store.name}: writing again {seconds} s after the restart"
        + (
            f"; its first batch took {first[0].duration_ms} ms for {first[0].rows} rows"
            if first
            else ""
        )
    )
    output.wait_for_more(3)
    app.stop()
    if stage.query is not None:
        if store is not HDFS:  # HDFS's rows are judged after the switch, which adds to them
            _judge_up_to_the_commit(stage, app)
        return
    report = output.verify()
    stage.expect(exactly_once(report, report.highest or 0))


def _kill_mid_batch(stage: Stage, app: AppPart) -> None:
    """kill -9 while a batch is planned (offsets/N written) and not yet committed, so the
    restart has a batch to replay; a batch takes a few hundred ms, so poll often."""

    def in_flight() -> int | None:
        # Names only: this runs fifty times a second beside a busy Spark (on a store, as fast
        # as its listing answers).
        planned, done = stage.store.newest_batches(app.folders.checkpoints)
        return planned if planned > done else None  # -1 for none: no batch yet, none in flight

    batch = app.wait_while_up(in_flight, "a batch in flight", timeout=60, poll=0.02)
    app.kill()
    stage.say(f"killed while batch {batch} was in flight")


def _switch_provider(stage: Stage, hdfs: AppPart) -> None:
    """The HDFS checkpoint started again asking for RocksDB: what Spark does with the ask."""
    warned_before = hdfs.spark_log().count(PINNED_WARN)
    versions_before = set(per_version(_state_files(stage, hdfs)))
    hdfs.start(state_store="rocksdb", **cadence(stage.settings.fast))
    output = stage.output.of(hdfs)
    output.wait_for_more(3)
    hdfs.stop()
    note = next(
        (line for line in hdfs.output().splitlines() if "pinned in its offset log" in line), ""
    )
    stage.expect(
        check(
            "the app says the checkpoint keeps HDFS",
            "Spark keeps hdfs" in note,
            "a note: Spark keeps hdfs and ignores --state-store rocksdb",
            note or "no note",
        )
    )
    warned = hdfs.spark_log().count(PINNED_WARN) - warned_before
    stage.expect(
        check(
            "Spark warns that the offset log overrules the session",
            warned >= 1,
            f"spark.log: {PINNED_WARN} … to '{PROVIDER_CLASSES['hdfs']}'",
            f"{warned} such warning(s)",
        )
    )
    files = _state_files(stage, hdfs)
    new = {v: names for v, names in per_version(files).items() if v not in versions_before}
    stage.fact("switch_new_versions", {str(v): names for v, names in new.items()})
    rocks = [f.name for f in files if f.kind in ("zip", "changelog", "sst")]
    stage.expect(
        check(
            "the new batches were written by HDFS",
            new
            and all(any(n.endswith(".delta") for n in names) for names in new.values())
            and not rocks,
            "a .delta for every new version, no .zip/.changelog/SST",
            f"new {new}, RocksDB files {rocks[:3]}",
        )
    )
    pinned = read_checkpoint(hdfs.checkpoint_view()).conf.get(PROVIDER_CONF)
    stage.expect(equals("the newest offsets/N still pins HDFS", pinned, PROVIDER_CLASSES["hdfs"]))
    if stage.query is not None:
        _judge_up_to_the_commit(stage, hdfs)
        return
    report = output.verify()
    stage.expect(exactly_once(report, report.highest or 0))


SCENARIO = Scenario(
    name="state-stores",
    title="HDFS, RocksDB, RocksDB + changelog: files per batch, snapshots, recovery; no switching",
    summary="The same count on three state stores: the files each writes per batch and how "
    "often it snapshots, a kill -9 and what the restart loads and replays, every "
    "message once; then an HDFS checkpoint asked for RocksDB keeps HDFS, with a warning.",
    origin="Spark 4's state stores",
    about="three state stores on the same stream: what each writes per batch, what a restart "
    "reads, and whether a checkpoint can change its store",
    run=run,
    takes="about 2 min: the same count on three state stores, each killed with kill -9 and "
    "restarted",
    checkpoint_stores=("local", "hdfs", "s3"),
    # The stores' files, their recovery and the pinned provider are any stateful query's.
    takes_query=True,
    with_query=(
        "a query with one stateful operator (`sessions.py`, `count_per_key.py`) on HDFS, "
        "RocksDB and RocksDB with changelog, each on a checkpoint of its own: the files per "
        "batch, a kill -9 mid-batch and what the restart loads, the HDFS checkpoint asked for "
        "RocksDB; the oracle judges each app over every record up to its last commit (three "
        "oracle runs)"
    ),
)
