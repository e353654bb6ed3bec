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

Usage: `python -m scenarios run state-stores --fast`
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from scenarios.checker.expectations import check, equals, exactly_once
from scenarios.engine.observers.state_folder import (
    cadence,
    listed_state_files,
    partition_of,
    snapshot_every,
)
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.checkpoint.state_data_source import files_to_load
from spark_app.checkpoint.state_files import StateFile, per_version, snapshot_versions
from spark_app.lines.batch_line import parse_batch_lines
from spark_app.runtime.state_store import PROVIDER_CLASSES, PROVIDER_CONF

__all__ = ["SCENARIO", "run", "Store", "STORES", "layout_problems"]

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


STORES = (
    Store("hdfs", "HDFS", {"state_store": "hdfs"}),
    Store(
        "rocksdb",
        "RocksDB",
        {"state_store": "rocksdb"},
        per_batch="zip",
        snapshot="zip",
        every_batch_snapshot=True,
    ),
    Store(
        "rocksdb-changelog",
        "RocksDB with changelog checkpointing",
        {"state_store": "rocksdb", "changelog_checkpointing": True},
        per_batch="changelog",
        snapshot="zip",
    ),
)


def run(stage: Stage) -> None:
    every = stage.fact("snapshot_every", snapshot_every(stage.settings.fast))
    stage.step(
        Step(
            "Start Kafka and the producer",
            happens="one topic that keeps everything; three apps will read it in turn, each from "
            "the earliest offset on a checkpoint of its own",
            watch="the producer's lines",
            why="the same input for every store, so only the store differs",
            question="Three apps read the same topic in turn: will each count from 1?",
            answer="Yes: each starts at the earliest offset on a checkpoint of its own, so only the "
            "store differs.",
            production="to compare settings on real data, run them on separate checkpoints over the "
            "same input, never one after the other on one checkpoint",
        )
    )
    stage.kafka.start()
    apps = {store.name: _one_store(stage, store, every) for store in STORES}
    _switch_provider(stage, apps["hdfs"])


def _one_store(stage: Stage, store: Store, every: int) -> AppPart:
    """Run the count on `store`, show its files per batch, kill -9 it, restart it, check."""
    app = stage.app.beside(store.name, narrated=True)
    stage.step(_files_step(store, every))
    app.start(**store.options, **cadence(stage.settings.fast))
    files = _wait_for_snapshots(stage, app, store, every)
    _show_files(stage, store, files, every)
    _kill_and_recover(stage, app, store)
    return app


def _files_step(store: Store, every: int) -> Step:
    writes = {
        "hdfs": "each batch writes `<v>.delta` (the keys it changed); background maintenance "
        f"writes a full `<v>.snapshot` once {every} or more deltas have piled up",
        "rocksdb": "each batch uploads a whole snapshot `<v>.zip` (RocksDB's small files and the "
        "list of its data files) and the new `SSTs/*.sst` data files",
        "rocksdb-changelog": "each batch writes only `<v>.changelog` (the keys it changed); a "
        f"snapshot `<v>.zip` + SSTs follows every {every} versions, "
        "uploaded by background maintenance",
    }[store.name]
    return Step(
        f"{store.title}: the same stream on a new checkpoint",
        happens=f"the app starts with {_flags(store)}; {writes}",
        watch=f"`{store.name}/checkpoints/state/0/0/` listed by state version (version v = "
        "batch v-1)",
        why="the store decides what a batch costs to checkpoint and what a restart must read: "
        "a snapshot is the whole state, a delta or changelog only what one batch changed",
        production="HDFS keeps the whole state in executor memory; RocksDB keeps it on local "
        "disk, for state bigger than memory; changelog checkpointing makes each "
        "batch's upload small, which matters on object storage",
        question="Which files will each batch write in state/0/0/ with this store, and how often a "
        "snapshot?",
        answer=f"{writes[0].upper()}{writes[1:]} (checked: the files per batch are the store's)",
    )


def _flags(store: Store) -> str:
    flags = [f"--state-store {store.options['state_store']}"]
    if store.options.get("changelog_checkpointing"):
        flags.append("--changelog-checkpointing")
    return " ".join(flags)


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


def _kill_and_recover(stage: Stage, app: AppPart, store: Store) -> None:
    stage.step(
        Step(
            f"{store.title}: kill -9 and restart",
            happens="kill -9 of the app's process group while a batch is in flight (offsets/N "
            "written, commits/N not yet); then the same command again on the same checkpoint",
            watch="which files the next batch loads (the newest snapshot, then each delta or "
            "changelog after it), the batch replayed if one was planned and not committed, "
            "and the time until the app writes again",
            why="recovery = load the latest snapshot at or below the committed version, replay the "
            "deltas/changelogs after it, then re-run the uncommitted batch with the same offsets; "
            "the exactly-once sink drops what that batch had half written",
            production="recovery time grows with the changelogs since the last snapshot: "
            "minDeltasForSnapshot trades upload size against replay on restart",
            question="After kill -9 mid-batch, what will the restart load, and will any message be lost "
            "or doubled?",
            answer="The newest snapshot at or below the committed version and the deltas or changelogs "
            "after it, then the uncommitted batch again; nothing lost or doubled (checked).",
        )
    )
    _kill_mid_batch(stage, app)
    view = app.checkpoint_view()  # on a store, a copy read through its API
    info = read_checkpoint(view)
    committed = info.last_committed_id if info.last_committed_id is not None else -1
    loads = files_to_load(partition_of(view), committed + 1)
    replayed = info.pending_id
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
    output.wait_for_messages(before + 1)
    seconds = round(time.monotonic() - started, 1)
    output.wait_for_batches(1)
    first = parse_batch_lines(app.output())
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
    stage.step(
        Step(
            "Restart the HDFS checkpoint with --state-store rocksdb",
            happens="the app starts on the HDFS checkpoint asking for RocksDB",
            watch="the app's own note before Spark starts; spark.log's WARN `Updating the value of "
            "conf 'spark.sql.streaming.stateStore.providerClass' in current session from "
            "'…RocksDB…' to '…HDFS…'`; the new batches still write `.delta` files",
            why="the provider is pinned in offsets/N when the checkpoint is created: RocksDB could "
            "not read HDFS's deltas, so Spark re-imposes the pinned value and only warns",
            production="to change the store, start a new checkpoint: read the old state with the "
            "State Data Source (`python -m spark_app inspect --state-source`), seed it "
            "(transformWithState's initialState) and start Kafka at the old checkpoint's "
            "offsets (JSON startingOffsets); or start over, if the state can be rebuilt",
            question="Asked for RocksDB on an HDFS checkpoint, which store will write the new batches?",
            answer="HDFS: the app notes that Spark keeps hdfs, spark.log warns that the offset log "
            "overrules the session, the new versions are `.delta` files and offsets/N still pins "
            "HDFS, every message once (all checked).",
        )
    )
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
    report = output.verify()
    stage.expect(exactly_once(report, report.highest or 0))


SCENARIO = Scenario(
    name="state-stores",
    title="HDFS, RocksDB, RocksDB + changelog: files per batch, snapshots, recovery; no switching",
    summary="The same count on three state stores: the files each writes per batch and how "
    "often it snapshots, a kill -9 and what the restart loads and replays, every "
    "message once; then an HDFS checkpoint asked for RocksDB keeps HDFS, with a warning.",
    origin="Spark 4's state stores",
    run=run,
    takes="about 2 min: the same count on three state stores, each killed with kill -9 and "
    "restarted",
    checkpoint_stores=("local", "hdfs", "s3"),
)
