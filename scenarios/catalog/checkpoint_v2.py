"""Checkpoint format 2: state files named per attempt, a lineage, and commits that say which
attempt's files a batch committed.

The count runs on RocksDB with changelog checkpointing and `--checkpoint-format 2`. The
scenario shows the state files' unique names (`<v>_<uuid>.changelog`), the ids `commits/<N>`
records (`stateUniqueIds`), and the lineage a changelog carries back to its snapshot. Then a
negative key kills the app in the middle of a batch (the JVM is SIGKILLed after the state was
written, before the commit): the retry writes the same version under a new id, the commit names
the retry, and later batches build on it, so the first attempt's file is never loaded. Last,
the checkpoint is restarted with `--checkpoint-format 1`: refused (on Spark 4.2 it cannot load
format 2's files), and format 2 goes on, every message once.

With a user's query (`--query FILE.py`, one that keeps its state in one operator:
queries/count_per_key.py, queries/sessions.py) the app runs it on format 2 and every step reads
the same files. One thing differs: the crash on a record comes before the query, in the stage
that reads Kafka, so the batch it kills never writes its state. The batch is killed instead with
kill -9 once its state file is on disk and before its commit (the app is frozen with SIGSTOP
while the scenario looks, so the moment cannot slip past), which is where the counter's crash
lands. The oracle judges the query's rows at the end.

Usage: `python -m scenarios run checkpoint-v2 --fast`
"""

from __future__ import annotations

import os
import signal

from scenarios.catalog import steps
from scenarios.checker.expectations import check
from scenarios.engine.observers.state_folder import (
    cadence,
    listed_state_files,
    partition_of,
    snapshot_every,
)
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.errors import StepFailed
from spark_app.checkpoint.reader import read_checkpoint, read_log_file
from spark_app.checkpoint.state_data_source import committed_ids, uncommitted_files
from spark_app.checkpoint.state_files import (
    StateFile,
    list_state_files,
    read_lineage,
    unique_ids_by_version,
)
from spark_app.errors import StateStoreOptionError, error_in_text
from spark_app.lines.batch_line import parse_batch_lines
from spark_app.offsets import Offsets
from spark_app.runtime.spark_version import installed_spark_version, major_minor
from spark_app.runtime.state_store import format_downgrade_refusal
from spark_app.settings import SparkAppSettings

__all__ = ["SCENARIO", "run", "FORMAT_2", "lineage_problems"]

FORMAT_2 = {"state_store": "rocksdb", "changelog_checkpointing": True, "checkpoint_format": 2}


_START_KAFKA = steps.start_kafka(
    happens="a broker and the producer; the topic keeps everything",
    why="a retried batch must read the same offsets again: Kafka keeps them",
    question="If a batch is retried, will it read the same messages as the first attempt?",
    answer="Yes: Kafka keeps everything here, and the retry reads the offsets the checkpoint "
    "planned for that batch (checked when a batch is retried, later).",
    production="retention must outlast any retry and restart, or a retried batch fails on data "
    "loss",
    giveaway=("yes:", "offsets the checkpoint planned"),
    checks=("the retry read the offsets planned for its batch",),
)


def run(stage: Stage) -> None:
    every = stage.fact("snapshot_every", snapshot_every(stage.settings.fast))
    with stage.step(_START_KAFKA):
        stage.kafka.start()
    with stage.step(
        Step(
            "Start the app on RocksDB with changelog checkpointing and checkpoint format 2",
            happens="--state-store rocksdb --changelog-checkpointing --checkpoint-format 2 "
            "(spark.sql.streaming.stateStore.checkpointFormatVersion=2, an internal conf); the "
            "scenario waits for a snapshot and the changelogs after it, then lists the state "
            "files",
            watch="the app's batch lines while the state versions pile up; then the narration's "
            "lines, one per state file: `v3 (batch 2): <its name>`",
            why="format 1 names a version's file `<v>.changelog` whatever attempt wrote it, so a "
            "retried or speculative task overwrites, or leaves behind, a file under the very "
            "name the next load reads; format 2 names each attempt apart and lets the commit "
            "choose",
            production="format 2 is still internal in Spark 4.2 (Real-time Mode's stateful "
            "queries need it from 4.3); RocksDB only. Tools that parse state file names as "
            "numbers (cleanup scripts, monitoring) break on it: check them before switching",
            question="How will the state files be named: `<v>.changelog` as in format 1, or "
            "something more?",
            answer="`<v>_<uuid>.changelog` and `<v>_<uuid>.zip`: each attempt's own id in the "
            "name, none without one (checked); from Spark 4.1 on, Spark's own `.crc` checksum "
            "sits beside each (checked on the Spark that ran).",
            giveaway=("<v>_<uuid>", "uuid", "attempt's own id"),
            checks=("every state file is named <v>_<uuid>",),
        )
    ):
        stage.app.start(**FORMAT_2, **cadence(stage.settings.fast))
        if stage.query is not None:
            _keeps_state(stage)
        files = _wait_for_lineage(stage, every)
        _unique_names(stage, files)
    with stage.step(
        Step(
            "Read commits/N",
            happens='the scenario reads commits/N: `v2`, then {"nextBatchWatermarkMs": …, '
            '"stateUniqueIds": {operator: [[id per store] per partition]}}, and holds the ids '
            "against the state files on disk",
            watch="the narration's line naming the last commit, its `v2` and the ids it "
            "records; the app's batch lines go on",
            why="on a restart the driver reads the last commit and tells each task which attempt "
            "to load: a file no commit names is never read",
            production="a format-2 commit log cannot be read by Spark 4.0's State Data Source, "
            "nor by a Spark that knows only `v1` commits",
            question="Which state file's id will commits/N name?",
            answer="The id of state version N+1 on disk: every commit's id names a state file of "
            "its version, and the commits are `v2` (checked).",
            giveaway=("n+1", "of its version"),
            checks=("every commit's id names a state file of its version",),
        )
    ):
        _commits_name_ids(stage)
    with stage.step(
        Step(
            "Read the lineage in the newest changelogs",
            happens="the scenario reads the head of the newest changelogs (lz4 blocks, then the "
            "writer version `v3` and a JSON lineage)",
            watch="the narration's line per changelog, `vN: lineage [version_id, …]`; the app's "
            "batch lines go on",
            why="with ids in the names, a version number alone no longer says which file: the "
            "lineage lists (version, id) from a snapshot up to the version before it, the "
            "attempts this state was built on: what to load and replay to rebuild it",
            production="a lineage that does not match the commit stops the load "
            "(STATE_STORE_BASE_CHECKPOINT_ID_MISMATCH) instead of loading a file no commit "
            "chose",
            question="Where will a changelog's lineage start, and which ids will it list?",
            answer="At a snapshot (or version 1), running through every version up to v-1, on "
            "ids that commits/N name (checked).",
            giveaway=("at a snapshot", "up to v-1"),
            checks=("each lineage runs from a snapshot (or version 1) to v-1, on committed ids",),
        )
    ):
        _lineage(stage)
    with stage.step(
        steps.negative_key(
            happens="the producer sends a negative key; the app writes the lines before it, then "
            "SIGKILLs its JVM and exits (the seed's halt), after the batch's state was "
            "written and before its commit; then the app is started again",
            watch="the app's lines stop in the middle of a batch; the narration names the state "
            "version the dead attempt left; then the restarted app's batch lines, and the ids "
            "of that version",
            why="a restart re-runs the uncommitted batch with the same offsets; the new attempt "
            "gets a new id, so it cannot be confused with the first one",
            production="the dead attempt's file stays on disk until maintenance cleans old "
            "versions; `python -m spark_app inspect --state-source` lists it as left by "
            "attempts no commit names",
            question="After the crash and the retry, how many files will state version N+1 "
            "have, and which one will the commit name?",
            answer="Two: the dead attempt's and the retry's; commits/N names the retry's, later "
            "lineages build on it, inspect lists the dead one as not loaded, and the negative "
            "key's message is written once (all checked).",
            giveaway=("two:", "names the retry", "second file"),
            checks=(
                "the dead attempt left its state file",
                "two attempts' files, the commit names the retry's",
                "later changelogs build on the committed attempt",
                "inspect's reading lists the dead attempt's file as not loaded",
                "the negative key's message was written once",
            ),
        )
    ):
        _retried_batch(stage)
    _back_to_format_1(stage)
    with stage.step(
        steps.finish(
            question="After a batch killed mid-way, its retry and the restarts, will any value be "
            "missing from the output log, or written twice?",
            why="every start read the checkpoint's offsets and the state its last commit named; "
            "the exactly-once sink wrote each batch once",
            giveaway=("none:", "every value 1..n is there"),
        )
    ):
        stage.finish_exactly_once()


def _state_files(stage: Stage) -> list[StateFile]:
    """The state files, listed wherever the checkpoint is (a store: its listing, no copy)."""
    return listed_state_files(stage.store.files(stage.folders.checkpoints))


def _offsets_listed(stage: Stage) -> list[str]:
    return sorted(stage.store.files(stage.folders.checkpoints / "offsets"))


def _wait_for_lineage(stage: Stage, every: int) -> list[StateFile]:
    """Wait for a changelog whose lineage starts at a snapshot: the snapshot must be uploaded
    (by maintenance) before the batch that writes the changelog begins."""

    def enough() -> list[StateFile] | None:
        files = _state_files(stage)
        zips = {(f.version, f.unique_id) for f in files if f.kind == "zip"}
        changelogs = sorted(
            (f for f in files if f.kind == "changelog"), key=lambda f: f.version or 0
        )
        if not zips or not changelogs:
            return None
        # The lineage is in the file: on a store, read from a copy, made only once both exist.
        lineage = read_lineage(partition_of(stage.app.checkpoint_view()) / changelogs[-1].name)
        return files if lineage and lineage[0] in zips else None

    return stage.app.wait_while_up(
        enough,
        "a changelog whose lineage starts at a snapshot",
        timeout=stage.timings.spark_start_timeout_sec + 3 * 60,
        poll=0.5,
    )


def _unique_names(stage: Stage, files: list[StateFile]) -> None:
    """Say the state files' names; check each carries an id, and Spark's checksum beside it."""
    versioned = [f for f in files if f.version is not None]
    for f in versioned[:6]:
        stage.say(f"v{f.version} (batch {f.version - 1}): {f.name}")
    stage.fact("state_files", [f.name for f in versioned[:8]])
    nameless = [f.name for f in versioned if f.unique_id is None]
    stage.expect(
        check(
            "every state file is named <v>_<uuid>",
            versioned and not nameless,
            "no `<v>.changelog`/`<v>.zip` without an id",
            f"{len(versioned)} files, without an id: {nameless[:3] or 'none'}",
        )
    )
    names = {f.name for f in files}
    unchecked = [f.name for f in versioned if f"{f.name}.crc" not in names]
    spark = stage.settings.spark_version or installed_spark_version()
    if major_minor(spark) >= CHECKSUMS_FROM:
        stage.expect(
            check(
                "Spark's checksum file beside each",
                not unchecked,
                "a visible `<file>.crc` (checkpoint.fileChecksum, format 2 only)",
                f"missing for {unchecked[:3] or 'none'}",
            )
        )
    else:  # found by the version matrix: 4.0 writes none
        checked = [f.name for f in versioned if f.name not in unchecked]
        stage.expect(
            check(
                f"no checksum files on Spark {spark}",
                not checked,
                "no `<file>.crc`: checkpoint.fileChecksum came in Spark 4.1",
                f"`.crc` beside {checked[:3] or 'none'}",
            )
        )


# Spark writes a checksum file beside each state file from this line on
# (spark.sql.streaming.checkpoint.fileChecksum.enabled, 4.1.0); the version matrix saw none on 4.0.0.
CHECKSUMS_FROM = (4, 1)


def _commits_name_ids(stage: Stage) -> None:
    """Say the last commit; check every commit's ids against the state files on disk."""
    checkpoints = stage.app.checkpoint_view()  # on a store, a copy read through its API
    last = read_checkpoint(checkpoints).last_committed_id or 0
    version, lines = read_log_file(checkpoints / "commits" / str(last))
    stage.say(f"commits/{last}: {version} {' '.join(lines).strip()}")
    stage.fact("last_commit", {"batch": last, "version": version, "body": " ".join(lines).strip()})
    committed = committed_ids(checkpoints)
    on_disk = unique_ids_by_version(list_state_files(partition_of(checkpoints)))
    unmatched = [v for v, ids in committed.items() if not ids <= on_disk.get(v, set())]
    stage.expect(
        check(
            "every commit's id names a state file of its version",
            version == "v2" and committed and not unmatched,
            "commits/N are v2 and each id is the id of `<N+1>_<id>.*`",
            f"{version}, {len(committed)} commits, unmatched versions {unmatched or 'none'}",
        )
    )


def _lineage(stage: Stage) -> None:
    """Say the newest changelogs' lineages; check each runs from a snapshot on committed ids."""
    view = stage.app.checkpoint_view()
    files = list_state_files(partition_of(view))
    committed = committed_ids(view)
    newest = sorted((f for f in files if f.kind == "changelog"), key=lambda f: f.version or 0)[-3:]
    problems: list[str] = []
    for f in newest:
        lineage = read_lineage(partition_of(view) / f.name)
        stage.say(f"v{f.version}: lineage {_short(lineage)}")
        problems += lineage_problems(f.version or 0, lineage, files, committed)
    stage.fact("lineage", {f.name: read_lineage(partition_of(view) / f.name) for f in newest})
    stage.expect(
        check(
            "each lineage runs from a snapshot (or version 1) to v-1, on committed ids",
            newest and not problems,
            "consecutive versions, ids that commits/N name",
            "; ".join(problems[:3]) or "as expected",
        )
    )


def _short(lineage: list[tuple[int, str]]) -> str:
    """A lineage in a line: every entry when few, else the first two and the last."""
    shown = [f"{v}_{i[:8]}" for v, i in lineage]
    if len(shown) > 4:
        shown = [*shown[:2], f"… {len(shown) - 3} more …", shown[-1]]
    return "[" + ", ".join(shown) + "]"


def lineage_problems(
    version: int,
    lineage: list[tuple[int, str]],
    files: list[StateFile],
    committed: dict[int, set[str]],
) -> list[str]:
    """What is wrong with the lineage of state `version` (empty: nothing)."""
    if not lineage:
        return [] if version == 1 else [f"v{version}: no lineage"]
    versions = [v for v, _ in lineage]
    problems = []
    if versions != list(range(versions[0], version)):
        problems.append(f"v{version}: lineage versions {versions}")
    first, first_id = lineage[0]
    zips = {(f.version, f.unique_id) for f in files if f.kind == "zip"}
    if first != 1 and (first, first_id) not in zips:
        problems.append(f"v{version}: starts at {first}_{first_id[:8]}, not a snapshot")
    strays = [v for v, i in lineage if v in committed and i not in committed[v]]
    if strays:
        problems.append(f"v{version}: ids no commit names at {strays}")
    return problems


def _keeps_state(stage: Stage) -> None:
    """A query that keeps no state has no state files to name: one line once its first batch is
    committed, instead of a wait for a lineage that never comes."""
    stage.output.wait_for_value(1)
    if not any(name.startswith("state/") for name in stage.store.files(stage.folders.checkpoints)):
        assert stage.query is not None
        raise StepFailed(
            f"{stage.query.name} keeps no state (its checkpoint has no state/ after its first "
            "batch): checkpoint-v2 shows a query's state files; run it with a stateful query, "
            "e.g. queries/count_per_key.py"
        )


def _kill_after_the_state_write(stage: Stage, tries: int = 10) -> None:
    """With a query: kill -9 once a batch's state file is on disk and its commit is not. The
    app is frozen (SIGSTOP to its process group) when the file shows up, and killed only if
    the commit did not land meanwhile; else it goes on, and the next batch is the aim."""
    folder = stage.folders.checkpoints

    def state_written() -> int | None:
        planned, done = stage.store.newest_batches(folder)
        if planned <= done:
            return None
        versions = unique_ids_by_version(listed_state_files(stage.store.files(folder)))
        return planned if versions.get(planned + 1) else None

    pid = stage.app.process.pid
    assert pid is not None, "the app runs: _keeps_state waited for its first batch"
    for _ in range(tries):
        batch = stage.app.wait_while_up(
            state_written, "a batch whose state is written, not committed", poll=0.02
        )
        os.killpg(pid, signal.SIGSTOP)
        if stage.store.newest_batches(folder)[1] < batch:
            stage.app.kill()
            stage.say(
                f"killed after batch {batch} wrote its state, before its commit: a query's "
                "crash on a record would come before its state"
            )
            return
        os.killpg(pid, signal.SIGCONT)  # its commit landed before the freeze: aim at the next
    raise StepFailed(f"{tries} batches committed before the app could be frozen between")


def _retried_batch(stage: Stage) -> None:
    """A negative key kills the app after its batch wrote its state; the retry's files. With a
    query, kill -9 at that moment (its crash on a record comes before the state)."""
    if stage.query is None:
        value = stage.fact("negative_value", stage.kafka.send_negative_key())
        code = stage.app.wait_exit(kind="crash")
        stage.expect(
            check(
                "the app died on the negative key",
                code == 255,
                "exit code 255",
                f"exit code {code}",
            )
        )
    else:
        _kill_after_the_state_write(stage)
    checkpoints = stage.app.checkpoint_view()
    info = read_checkpoint(checkpoints)
    pending = info.pending_id
    planned = info.pending.end if info.pending else None
    version = (pending or 0) + 1
    first_ids = unique_ids_by_version(list_state_files(partition_of(checkpoints))).get(
        version, set()
    )
    stage.say(
        f"batch {pending} was planned, not committed; version {version} on disk: "
        f"{sorted(i[:8] for i in first_ids)}"
    )
    stage.expect(
        check(
            "the dead attempt left its state file",
            pending is not None and len(first_ids) == 1,
            f"one `<{version}>_<id>.changelog` and no commits/{pending}",
            f"pending batch {pending}, ids {sorted(first_ids)}",
        )
    )
    stage.app.start(**FORMAT_2, **cadence(stage.settings.fast))
    if stage.query is None:
        stage.output.wait_for_value(value + 2)
    else:  # past the retried batch, as value + 2 is past the negative key's
        stage.output.wait_for_value(sum((planned or {}).values()) + 2)
    stage.output.wait_for_batches(3, more=True)
    retried = next(
        (b for b in parse_batch_lines(stage.app.output()) if b.batch_id == pending), None
    )
    stage.expect(
        check(
            "the retry read the offsets planned for its batch",
            retried is not None and planned is not None and retried.end == planned,
            f"batch {pending} ending at {_ends(planned)}, as offsets/{pending} planned",
            f"batch {pending} ending at {_ends(retried.end)}"
            if retried is not None
            else f"no batch line for batch {pending}",
        ),
        step=_START_KAFKA,
    )
    _retry_chosen(stage, version, first_ids)
    if stage.query is not None:  # no negative key; how often its rows were written: the oracle's
        return
    stage.expect(
        check(
            "the negative key's message was written once",
            stage.output.negative_key_lines(value) == 1,
            "1 line",
            f"{stage.output.negative_key_lines(value)} line(s)",
        )
    )


def _ends(offsets: Offsets | None) -> str:
    return ", ".join(f"{tp} {end}" for tp, end in sorted((offsets or {}).items())) or "none"


def _retry_chosen(stage: Stage, version: int, first_ids: set[str]) -> None:
    """After the retry: two attempts on disk, the commit and the next lineages name the retry."""
    checkpoints = stage.app.checkpoint_view()
    files = list_state_files(partition_of(checkpoints))
    on_disk = unique_ids_by_version(files).get(version, set())
    chosen = committed_ids(checkpoints).get(version, set())
    stage.fact(
        "retried_version",
        {
            "version": version,
            "first_attempt": sorted(first_ids),
            "committed": sorted(chosen),
            "on_disk": sorted(on_disk),
        },
    )
    stage.say(
        f"version {version}: on disk {sorted(i[:8] for i in on_disk)}, commits/{version - 1} "
        f"names {sorted(i[:8] for i in chosen)}"
    )
    stage.expect(
        check(
            "two attempts' files, the commit names the retry's",
            len(on_disk) == 2 and len(chosen) == 1 and not chosen & first_ids and chosen <= on_disk,
            f"two ids for version {version}, the committed one new",
            f"on disk {sorted(on_disk)}, committed {sorted(chosen)}",
        ),
    )
    later = [
        f
        for f in files
        if f.kind == "changelog"
        and (f.version or 0) > version
        and f.unique_id in committed_ids(checkpoints).get(f.version or 0, set())
    ]
    built_on = {
        f.name: dict(read_lineage(partition_of(checkpoints) / f.name)).get(version) for f in later
    }
    named = {i for i in built_on.values() if i is not None}
    stage.expect(
        check(
            "later changelogs build on the committed attempt",
            not named & first_ids and (not named or named == chosen),
            f"lineages name {sorted(i[:8] for i in chosen)} for version {version}, "
            "never the dead attempt",
            f"they name {sorted(i[:8] for i in named) or 'no such version (a snapshot came first)'}",
        ),
    )
    leftover = uncommitted_files(partition_of(checkpoints), committed_ids(checkpoints))
    stage.fact("left_by_dead_attempts", leftover)
    stage.expect(
        check(
            "inspect's reading lists the dead attempt's file as not loaded",
            any(i in name for name in leftover for i in first_ids),
            f"{version}_<dead id>.changelog among files no commit names",
            leftover or "none",
        ),
    )


_FORMAT_1_TITLE = "Go back to format 1 on this checkpoint"
_FORMAT_1_HAPPENS = "the app is stopped and started with --checkpoint-format 1"
_FORMAT_1_WATCH = "the app's first lines after its start with --checkpoint-format 1"
_FORMAT_1_QUESTION = "Will the app accept --checkpoint-format 1 on this checkpoint?"
_FORMAT_1_PRODUCTION = (
    "choose the format when the checkpoint is created; going back means a new checkpoint (its "
    "state read with the State Data Source, started at the old offsets)"
)
# Before Spark 4.3 (what the lock installs: 4.2): the app refuses, Spark would fail a task.
_FORMAT_1_REFUSED = Step(
    _FORMAT_1_TITLE,
    happens=_FORMAT_1_HAPPENS,
    watch=_FORMAT_1_WATCH,
    why="Spark before 4.3 does not pin the format in the offsets; a format 1 store lists the "
    "folder and reads every name as a version number, and `3_<uuid>` is not one: its task "
    "fails after the batch was planned (CANNOT_LOAD_STATE_STORE.UNCATEGORIZED, "
    "NumberFormatException). The app checks commits/N first",
    production=_FORMAT_1_PRODUCTION,
    question=_FORMAT_1_QUESTION,
    answer="No: it refuses in one line (STATE_STORE_OPTION, with the words Spark fails with, "
    "CANNOT_LOAD_STATE_STORE) and plans no batch (checked).",
    giveaway=("refuse", "state_store_option", "cannot_load_state_store", "no:"),
    checks=("the app refuses format 1 in one line", "the refused start planned no batch"),
)
# From Spark 4.3 on: the format is read from the commit log and kept.
_FORMAT_1_KEPT = Step(
    _FORMAT_1_TITLE,
    happens=_FORMAT_1_HAPPENS,
    watch=_FORMAT_1_WATCH,
    why="Spark 4.3 reads the format from the commit log and keeps it",
    production=_FORMAT_1_PRODUCTION,
    question=_FORMAT_1_QUESTION,
    answer="It starts, but Spark keeps format 2: the next commit is v2 again (checked).",
    giveaway=("keeps format 2", "v2 again"),
    checks=("the checkpoint stays format 2",),
)


def _back_to_format_1(stage: Stage) -> None:
    spark = stage.settings.spark_version or installed_spark_version()
    # What the app does depends on the Spark it runs on: refused before 4.3, kept at 2 on 4.3.
    asked = SparkAppSettings(**{**FORMAT_2, "checkpoint_format": 1})  # type: ignore[arg-type]
    # The refused start leaves the app down: it starts again on format 2, a step of its own.
    if format_downgrade_refusal(asked, 2, spark) is not None:
        with stage.step(_FORMAT_1_REFUSED):
            offsets_before = _start_on_format_1(stage)
            _refused(stage, offsets_before)
        with stage.step(
            Step(
                "Start again with format 2",
                happens="the app starts with --checkpoint-format 2 on the same checkpoint",
                watch="the app's batch lines: the count from where it stopped",
                why="the refused start planned no batch and wrote nothing",
                question="Started again with format 2 after that start, will the query go on, and "
                "in which format will it commit?",
                answer="It goes on, and its commits are v2 (checked): the refused start changed "
                "nothing.",
                production="a refused start that planned no batch changes nothing: fix the option "
                "and start again",
                giveaway=("commits are v2", "changed nothing"),
                checks=("the checkpoint stays format 2",),
            )
        ):
            stage.app.start(**FORMAT_2, **cadence(stage.settings.fast))
            _stays_format_2(stage)
    else:
        with stage.step(_FORMAT_1_KEPT):
            _start_on_format_1(stage)
            _stays_format_2(stage)


def _start_on_format_1(stage: Stage) -> list[str]:
    """Stop the app and start it asking for format 1; the offset log's files before."""
    stage.app.stop()
    offsets_before = _offsets_listed(stage)
    stage.app.start(**{**FORMAT_2, "checkpoint_format": 1}, **cadence(stage.settings.fast))
    return offsets_before


def _stays_format_2(stage: Stage) -> None:
    stage.output.wait_for_more(3)
    checkpoints = stage.app.checkpoint_view()
    version, _ = read_log_file(
        checkpoints / "commits" / str(read_checkpoint(checkpoints).last_committed_id)
    )
    stage.expect(
        check("the checkpoint stays format 2", version == "v2", "commits/N are v2", version),
    )


def _refused(stage: Stage, offsets_before: list[str]) -> None:
    code = stage.app.wait_exit()
    output = stage.app.output()
    error = error_in_text(output)
    line = next((ln for ln in output.splitlines() if StateStoreOptionError.token in ln), "")
    stage.fact("format_1_refusal", line)
    stage.expect(
        check(
            "the app refuses format 1 in one line",
            code == StateStoreOptionError.exit_code
            and isinstance(error, StateStoreOptionError)
            and "CANNOT_LOAD_STATE_STORE" in line,
            f"exit {StateStoreOptionError.exit_code}, STATE_STORE_OPTION … "
            "[CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] …",
            f"exit {code}: {line[:200] or 'no such line'}",
        ),
    )
    after = _offsets_listed(stage)
    stage.expect(
        check(
            "the refused start planned no batch",
            after == offsets_before,
            f"offsets/ as before ({len(offsets_before)} files)",
            f"{len(after)} files",
        ),
    )


SCENARIO = Scenario(
    name="checkpoint-v2",
    title="checkpoint format 2: files per attempt, a lineage, commits that choose; no way back",
    summary="RocksDB with checkpoint format 2: unique state file names, the ids commits/N "
    "records and the lineage in each changelog; a batch killed after writing its state "
    "leaves two attempts' files and the committed one is loaded; format 1 refused.",
    origin="Spark 4's checkpoint format 2",
    about="checkpoint format 2: how it names the state files and what its commits record, "
    "what happens to a batch that dies after writing its state, and whether a checkpoint can "
    "go back to format 1",
    run=run,
    checkpoint_stores=("local", "hdfs", "s3"),
    # Format 2's names, commits and lineage are the state store's: any stateful query's.
    takes_query=True,
    with_query=(
        "a query with one stateful operator on RocksDB format 2: the state files' ids, the "
        "commits and the lineage; a batch killed with kill -9 after its state is written and "
        "before its commit (the crash on a record would come before the state); format 1 "
        "refused; the oracle at the end"
    ),
)
