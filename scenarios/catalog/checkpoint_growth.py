"""Does the checkpoint folder grow forever? A soak of many batches, measured while it runs.

The count runs batch after batch (a short trigger, a producer fast enough that every trigger
has data) while a sampler walks the checkpoint every second or few: files and bytes under
`offsets/`, `commits/`, `state/` and the rest, the batch entries of the logs, the state versions
on disk. What keeps the folder bounded, shown one by one:

1. On the HDFS store (Spark's default): minBatchesToRetain (N) is the history kept. The driver
   trims `offsets/` and `commits/` to N after every batch; the store's background maintenance
   deletes state versions older than N, from the snapshot before them, so the state saws by a
   snapshot interval. The extra-space ratio does nothing here: Spark 4.2's HDFS store never
   reads it.
2. On RocksDB, the ratio shows: maintenance deletes old versions only once more than N x ratio
   (Spark's default 0.3) stale ones have piled up, then all of them at once.
3. The RocksDB app stops: nothing is cleaned while no query runs, however long one waits.
4. The same checkpoint restarts with the ratio 0: its first maintenance deletes what the stop
   left, and from then on every maintenance deletes what is stale; the saw's teeth shrink.

Usage: `python -m scenarios run checkpoint-growth --fast` (`--batches N`: the HDFS soak's length)
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from scenarios.catalog import steps
from scenarios.checker.expectations import check, exactly_once
from scenarios.checker.folder_bounds import (
    MARGIN,
    batch_rate,
    caught_up_after,
    hdfs_state_bound,
    log_bound,
    log_problems,
    plateau_problem,
    ratio_problem,
    rocksdb_state_bound,
    state_problems,
    steady,
    unchanged_problem,
)
from scenarios.checker.folder_usage import CheckpointUsage, FolderSample
from scenarios.engine.observers.checkpoint_size import CheckpointSampler, listing, measure
from scenarios.engine.scenario import Scenario, ScenarioOption
from scenarios.engine.stage import AppPart, Stage
from scenarios.engine.step import Step
from spark_app.runtime.retention import SPARK_EXTRA_SPACE_RATIO, SPARK_MIN_BATCHES_TO_RETAIN

__all__ = ["SCENARIO", "run", "Soak", "soak_for"]

# Spark's defaults for what the app does not set.
SPARK_SNAPSHOT_EVERY = 10
SPARK_MAINTENANCE_SEC = 60.0


@dataclass(frozen=True)
class Soak:
    """How one run soaks: what the apps are told, for how long, how often the folder is measured."""

    retain: int  # minBatchesToRetain, N
    ratio: float  # ratioExtraSpaceAllowedInCheckpoint before the restart (Spark's default)
    snapshot_every: int  # HDFS: minDeltasForSnapshot
    hdfs_maintenance_sec: float
    rocksdb_maintenance_sec: float
    trigger_sec: float
    producer_interval_sec: float
    hdfs_batches: int
    rocksdb_batches: int
    ratio_zero_batches: int
    sample_sec: float
    stopped_wait_sec: float

    def app_options(self, store: str, ratio: float | None = None) -> dict[str, Any]:
        """The app's options; Spark's defaults are left unsaid (the seed's HDFS soak sets none
        but the trigger)."""
        maintenance = self.hdfs_maintenance_sec if store == "hdfs" else self.rocksdb_maintenance_sec
        options: dict[str, Any] = {"trigger_sec": self.trigger_sec}
        if store != "hdfs":
            options["state_store"] = store
        if self.retain != SPARK_MIN_BATCHES_TO_RETAIN:
            options["min_batches_to_retain"] = self.retain
        if store == "hdfs" and self.snapshot_every != SPARK_SNAPSHOT_EVERY:
            options["snapshot_every"] = self.snapshot_every
        if maintenance != SPARK_MAINTENANCE_SEC:
            options["maintenance_sec"] = maintenance
        if ratio is not None:
            options["extra_space_ratio"] = ratio
        return options


def soak_for(fast: bool, batches: int | None = None) -> Soak:
    """--fast: N=30, maintenance every second, about 270 batches in three minutes. The seed's
    timings: Spark's own defaults on HDFS (N=100, a snapshot every 10, maintenance every 60 s)
    over 2,000 one-second batches; RocksDB's maintenance every 5 s, so that its 60 s do not
    hide the ratio's 30 versions."""
    if fast:
        soak = Soak(
            retain=30,
            ratio=SPARK_EXTRA_SPACE_RATIO,
            snapshot_every=5,
            hdfs_maintenance_sec=1.0,
            rocksdb_maintenance_sec=1.0,
            trigger_sec=0.2,
            producer_interval_sec=0.05,
            hdfs_batches=110,
            rocksdb_batches=100,
            ratio_zero_batches=60,
            sample_sec=1.0,
            stopped_wait_sec=8.0,
        )
    else:
        soak = Soak(
            retain=SPARK_MIN_BATCHES_TO_RETAIN,
            ratio=SPARK_EXTRA_SPACE_RATIO,
            snapshot_every=SPARK_SNAPSHOT_EVERY,
            hdfs_maintenance_sec=SPARK_MAINTENANCE_SEC,
            rocksdb_maintenance_sec=5.0,
            trigger_sec=1.0,
            producer_interval_sec=0.5,
            hdfs_batches=2000,
            rocksdb_batches=400,
            ratio_zero_batches=250,
            sample_sec=5.0,
            stopped_wait_sec=150.0,
        )
    if batches is not None:  # never shorter than what lets every cleanup show
        soak = replace(soak, hdfs_batches=max(batches, 3 * soak.retain))
    return soak


# -- the story ------------------------------------------------------------------------------------


@dataclass
class _Watched:
    """The checkpoint the sampler walks: the app the scenario is soaking."""

    folder: Path


def run(stage: Stage, *, batches: int | None = None) -> None:
    soak = soak_for(stage.settings.fast, batches)
    stage.fact("soak", soak.__dict__)
    with stage.step(
        steps.start_kafka(
            title="Start Kafka and a fast producer",
            watch="the producer's lines below, many a second: `Experience [earliest:latest]: "
            "key -> value`, where earliest:latest are the topic's first and next offsets",
            happens=f"a broker and the producer, sending a message every "
            f"{soak.producer_interval_sec:g} s, faster than the trigger; the topic keeps "
            f"everything",
            why="a micro-batch runs only when there is new data: a message for every trigger "
            "makes every trigger a batch, and every batch adds files to the checkpoint",
            question=f"A trigger fires every {soak.trigger_sec:g} s: what makes it run a "
            "micro-batch, and what does a batch add to the checkpoint?",
            answer="New data in a source (or, for some stateful queries, a timeout or a "
            "watermark to move). With messages sent faster than the trigger, every trigger "
            "should find some, and every batch adds an offsets entry, a commit entry and a "
            "state version: the folder's growth is counted in batches.",
            production="a checkpoint grows with batches, not with data: count batches per hour "
            "when you size its storage",
            giveaway=("new data",),
            checks=(),
        )
    ):
        stage.kafka.start(interval_sec=soak.producer_interval_sec)
    # One app per store, each on a checkpoint of its own, labelled by its store on the picture.
    hdfs = stage.app.beside("hdfs", narrated=True)
    watched = _Watched(hdfs.folders.checkpoints)
    with CheckpointSampler(stage.timeline, lambda: watched.folder, soak.sample_sec) as sampler:
        _hdfs_soak(stage, soak, sampler, hdfs)
        rocksdb = _rocksdb_soak(stage, soak, sampler, watched)
        left = _stopped(stage, soak, sampler, rocksdb)
        _ratio_zero(stage, soak, sampler, rocksdb, left)
    stage.fact("samples", len(sampler.samples))


def _wait_for_batch(app: AppPart, batch: int, timeout: float) -> int:
    commits = app.folders.checkpoints / "commits"

    def reached() -> int | None:
        newest = max((int(p.name) for p in commits.glob("[0-9]*") if p.name.isdigit()), default=-1)
        return newest if newest >= batch else None

    return app.wait_while_up(reached, f"batch {batch} committed", timeout=timeout, poll=1.0)


def _drain_and_stop(stage: Stage, app: AppPart) -> int:
    """Stop the producer, let `app` write the last message, stop it; how many were sent.
    With no new data the query idles between triggers, so SIGTERM stops it at once and the
    folder the next phase watches is the one a finished batch left."""
    total = stage.kafka.stop_producer().latest
    stage.output.of(app).wait_for_value(total)
    app.stop()
    return total


def _soak_timeout(stage: Stage, soak: Soak, batches: int) -> float:
    """The slowest soak on a busy machine: two seconds a batch, or ten triggers, plus a start."""
    return stage.timings.spark_start_timeout_sec + batches * max(2.0, 10 * soak.trigger_sec)


def _hdfs_soak(stage: Stage, soak: Soak, sampler: CheckpointSampler, app: AppPart) -> None:
    with stage.step(
        Step(
            f"HDFS: soak {soak.hdfs_batches} batches on a new checkpoint",
            happens=f"the app runs on the HDFS store (Spark's default) with a "
            f"{soak.trigger_sec:g} s trigger, minBatchesToRetain N={soak.retain}, a snapshot "
            f"after {soak.snapshot_every} deltas and maintenance every "
            f"{soak.hdfs_maintenance_sec:g} s"
            + (
                " (all three Spark's defaults)"
                if soak.retain == SPARK_MIN_BATCHES_TO_RETAIN
                else ""
            )
            + f"; a sampler measures the folder every {soak.sample_sec:g} s",
            watch="the app's batch lines, several a second, and the wait's progress; the "
            "narration's figures of the folder come at the end of the soak (the run's picture "
            "draws them over time)",
            why="after every batch the driver deletes offsets/<n> and commits/<n> older than the "
            "last N batches; state files are deleted by the store's background maintenance: "
            "it keeps the last N versions and the snapshot they are built on, and deletes what "
            "is older. HDFS ignores ratioExtraSpaceAllowedInCheckpoint (Spark 4.2 reads it "
            "only in the RocksDB store)",
            production="leave minBatchesToRetain at 100 unless the file count hurts: it is how "
            "far back a restart or the State Data Source can go; monitor the checkpoint's "
            "file count and size, which must level off after about N batches",
            question="After many batches, will the checkpoint folder keep growing, or level off?",
            answer="It levels off: offsets/ and commits/ keep the last N batches (each entry "
            "with Hadoop's hidden .crc beside it), state versions climb past N and drop back a "
            "snapshot interval at a time, old ones are deleted, the size stops growing, and "
            "the output is exactly once (all checked).",
            giveaway=("levels off", "keep the last n", "stops growing"),
            checks=(
                "offsets/ and commits/ keep the last N batches",
                "state versions on disk stay bounded",
                "old state versions are deleted",
                "the folder's size stops growing",
                "exactly once",
            ),
        )
    ):
        sampler.phase = "hdfs"
        started = time.monotonic()
        app.start(**soak.app_options("hdfs"))
        _wait_for_batch(app, soak.hdfs_batches, _soak_timeout(stage, soak, soak.hdfs_batches))
        sampler.sample()
        stage.fact("hdfs_soak_seconds", round(time.monotonic() - started, 1))
        samples = sampler.of("hdfs")
        rate = batch_rate(samples)
        bound = hdfs_state_bound(soak.retain, soak.snapshot_every, rate * soak.hdfs_maintenance_sec)
        from_batch = soak.retain + 2 * (soak.snapshot_every + 1) + rate * soak.hdfs_maintenance_sec
        settled = steady(samples, from_batch)
        _say_phase(stage, "hdfs", samples, settled, rate, bound)
        logs = log_problems(settled, soak.retain)
        stage.expect(
            check(
                "offsets/ and commits/ keep the last N batches",
                not logs,
                f"{soak.retain - 1}..{log_bound(soak.retain)} entries each (N={soak.retain}) in every "
                f"sample from batch {math.ceil(from_batch)} on",
                "; ".join(logs) or _range_text(settled, "offsets_entries", "commits_entries"),
            )
        )
        states = state_problems(settled, bound)
        stage.expect(
            check(
                "state versions on disk stay bounded",
                not states,
                f"at most {bound} = N {soak.retain} + a snapshot interval {soak.snapshot_every + 1} + "
                f"2 x {math.ceil(rate * soak.hdfs_maintenance_sec)} batches per maintenance (snapshot "
                f"and cleanup each wait for one) + {MARGIN}",
                "; ".join(states) or _range_text(settled, "state_versions"),
            )
        )
        last = samples[-1].usage
        stage.expect(
            check(
                "old state versions are deleted",
                (last.oldest_state_version or 0) > 1,
                "the oldest state version on disk is no longer version 1",
                f"oldest state version {last.oldest_state_version}",
            )
        )
        plateau = plateau_problem(settled)
        stage.expect(
            check(
                "the folder's size stops growing",
                plateau is None,
                "the last third of the steady soak no larger than the middle third's largest (+15%)",
                plateau or _size_text(settled),
            )
        )
        total = _drain_and_stop(stage, app)
        stage.expect(exactly_once(stage.output.of(app).verify_sent(), total))


def _rocksdb_soak(
    stage: Stage, soak: Soak, sampler: CheckpointSampler, watched: _Watched
) -> AppPart:
    """A second app, on RocksDB and a checkpoint of its own, soaked; the sampler follows it."""
    with stage.step(
        Step(
            f"RocksDB: soak {soak.rocksdb_batches} batches with the extra-space ratio "
            f"{soak.ratio:g}",
            happens=f"a second app, on RocksDB and a checkpoint of its own, reads the same topic "
            f"from the start: N={soak.retain}, ratioExtraSpaceAllowedInCheckpoint "
            f"{soak.ratio:g} (Spark's default), maintenance every "
            f"{soak.rocksdb_maintenance_sec:g} s",
            watch="the RocksDB app's batch lines and the wait's progress; the narration's "
            "figures of the folder come at the end of the soak",
            why="RocksDB's maintenance deletes old versions only once more than round(N x ratio) "
            "stale ones have piled up (minVersionsToDelete): one listing of the folder for a "
            "bunch of deletions, cheaper on object storage, at the price of up to 30% more "
            "versions on disk",
            production="expect about N x 1.3 versions per state partition on Spark 4 (130 with "
            "the defaults), times the shuffle partitions: size alerts from Spark 3 need that "
            "headroom",
            question="On RocksDB with the default extra-space ratio, how many state versions "
            "will pile up before maintenance deletes any?",
            answer="Up to N plus round(N x ratio) stale ones, about N x 1.3, then they go all at "
            "once: a saw with tall teeth; the count stays within that bound (checked).",
            giveaway=("n x 1.3", "round(n x ratio) stale", "all at once"),
            checks=("state versions on disk stay bounded",),
        )
    ):
        app = stage.app.beside("rocksdb", narrated=True)
        watched.folder = app.folders.checkpoints
        sampler.phase = "rocksdb"
        stage.kafka.restart_producer(acks="all")
        app.start(**soak.app_options("rocksdb"))
        _wait_for_batch(app, soak.rocksdb_batches, _soak_timeout(stage, soak, soak.rocksdb_batches))
        sampler.sample()
        samples = sampler.of("rocksdb")
        rate = batch_rate(samples)
        per_maintenance = rate * soak.rocksdb_maintenance_sec
        bound = rocksdb_state_bound(soak.retain, soak.ratio, per_maintenance)
        settled = steady(samples, soak.retain * (1 + soak.ratio) + per_maintenance + MARGIN)
        _say_phase(stage, "rocksdb", samples, settled, rate, bound)
        states = state_problems(settled, bound)
        stage.expect(
            check(
                "state versions on disk stay bounded",
                not states,
                f"at most {bound} = N {soak.retain} + round(N x ratio) {round(soak.retain * soak.ratio)} "
                f"+ 1 + {math.ceil(per_maintenance)} batches per maintenance + {MARGIN}",
                "; ".join(states) or _range_text(settled, "state_versions"),
            )
        )
    return app


def _stopped(stage: Stage, soak: Soak, sampler: CheckpointSampler, app: AppPart) -> CheckpointUsage:
    with stage.step(
        Step(
            "Stop the RocksDB app and wait",
            happens=f"the producer stops, the app writes the last message and stops on SIGTERM "
            f"between two batches; its folder is listed, then watched for "
            f"{soak.stopped_wait_sec:g} s (many maintenance intervals)",
            watch="the app's last batch lines and its stop; the narration's figures of the "
            "folder; then the wait",
            why="every deletion is made by the running query: the driver trims the logs after a "
            "batch, the executors' maintenance thread trims the state; a stopped, killed or "
            "abandoned query cleans nothing",
            production="an abandoned checkpoint keeps its files forever: delete the folder of a "
            "query you retire",
            question="Once the query is stopped, will its checkpoint shrink over the next minutes?",
            answer="No: the same files with the same sizes after the wait (checked); only a "
            "running query cleans up.",
            giveaway=("no:", "same files", "cleans nothing"),
            checks=("a stopped query's checkpoint does not change",),
        )
    ):
        _drain_and_stop(stage, app)
        sampler.phase = "stopped"
        before = listing(app.folders.checkpoints)
        left = measure(app.folders.checkpoints)
        _say_figures(stage, "stopped", left)
        deadline = time.monotonic() + soak.stopped_wait_sec
        while time.monotonic() < deadline:  # a wait for nothing to happen; the sampler draws it
            time.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
        after = listing(app.folders.checkpoints)
        changed = unchanged_problem(before, after)
        stale = max(0, left.state_versions - soak.retain)
        stage.fact(
            "stopped",
            {
                "files": left.total_files,
                "bytes": left.total_bytes,
                "state_versions": left.state_versions,
                "stale_state_versions": stale,
                "waited_sec": soak.stopped_wait_sec,
            },
        )
        stage.say(f"{stale} state versions beyond N={soak.retain} stay on disk while stopped")
        stage.expect(
            check(
                "a stopped query's checkpoint does not change",
                changed is None,
                f"the same {len(before)} files, same sizes, after {soak.stopped_wait_sec:g} s",
                changed or f"the same {len(after)} files",
            )
        )
        return left


def _ratio_zero(
    stage: Stage, soak: Soak, sampler: CheckpointSampler, app: AppPart, left: CheckpointUsage
) -> None:
    with stage.step(
        Step(
            "Restart the RocksDB checkpoint with --extra-space-ratio 0",
            happens=f"the same command on the same folder, with "
            f"spark.sql.streaming.ratioExtraSpaceAllowedInCheckpoint=0, for "
            f"{soak.ratio_zero_batches} more batches",
            watch="the app's batch lines after the restart, and the wait's progress; the "
            "narration's figures of the folder come at the end",
            why="neither minBatchesToRetain nor the ratio is pinned in the offset log: a restart "
            "may change them; with ratio 0 every maintenance deletes all that is stale (Spark "
            "3's behaviour), at the cost of a listing every time",
            production="keep the default ratio on object storage, where listing costs; set 0 "
            "where the file count is what hurts (HDFS namenode quotas, inode limits)",
            question="Restarted with ratio 0, what happens to the stale versions the stop left, "
            "and how high will the state line peak now?",
            answer="The next run's first maintenance deletes them within a few batches; then the "
            "versions stay near N, with small teeth (one maintenance interval's batches) and a "
            "lower peak than with the ratio; every message is written once (all checked).",
            giveaway=("within a few batches", "lower peak", "stay near n"),
            checks=(
                "the next run deletes what the stopped one left",
                "with ratio 0, state versions stay near N",
                "the extra-space ratio lets N x ratio stale versions pile up",
                "exactly once",
            ),
        )
    ):
        start_batch = measure(app.folders.checkpoints).newest_batch or 0
        sampler.phase = "ratio0"
        stage.kafka.restart_producer(acks="all")
        app.start(**soak.app_options("rocksdb", ratio=0.0))
        _wait_for_batch(
            app,
            start_batch + soak.ratio_zero_batches,
            _soak_timeout(stage, soak, soak.ratio_zero_batches),
        )
        sampler.sample()
        samples = sampler.of("ratio0")
        rate = batch_rate(samples)
        per_maintenance = rate * soak.rocksdb_maintenance_sec
        bound = rocksdb_state_bound(soak.retain, 0.0, per_maintenance)
        # The stale versions the stop left go with the new run's first maintenance: a batch or two
        # to load the store, then one maintenance interval.
        within = 2 * math.ceil(per_maintenance) + 5
        caught_up = caught_up_after(samples, start_batch, left.oldest_state_version or 0)
        stage.fact("stale_versions_deleted_after_batches", caught_up)
        # From the second half on: the first maintenances have caught up with what the stop left.
        settled = samples[len(samples) // 2 :]
        _say_phase(stage, "ratio0", samples, settled, rate, bound)
        stage.expect(
            check(
                "the next run deletes what the stopped one left",
                caught_up is not None and caught_up <= within,
                f"the oldest of the {left.state_versions} versions the stop left (v"
                f"{left.oldest_state_version}) deleted within {within} batches of the restart",
                f"after {caught_up} batches" if caught_up is not None else "not in this run",
            )
        )
        states = state_problems(settled, bound)
        stage.expect(
            check(
                "with ratio 0, state versions stay near N",
                not states,
                f"at most {bound} = N {soak.retain} + 1 + {math.ceil(per_maintenance)} batches per "
                f"maintenance + {MARGIN}",
                "; ".join(states) or _range_text(settled, "state_versions"),
            )
        )
        with_ratio = [
            s.usage.state_versions
            for s in steady(sampler.of("rocksdb"), soak.retain * (1 + soak.ratio) + MARGIN)
        ]
        without = [s.usage.state_versions for s in settled]
        problem = ratio_problem(with_ratio, without, soak.retain, soak.ratio)
        stage.expect(
            check(
                "the extra-space ratio lets N x ratio stale versions pile up",
                problem is None,
                f"a peak of at least {soak.retain + round(soak.retain * soak.ratio) - 1} with ratio "
                f"{soak.ratio:g}, and a lower one with 0",
                problem or f"peaks {max(with_ratio)} and {max(without)}",
            )
        )
        total = _drain_and_stop(stage, app)
        stage.expect(exactly_once(stage.output.of(app).verify_sent(), total))


# -- what is said ---------------------------------------------------------------------------------


def _say_phase(
    stage: Stage,
    phase: str,
    samples: Sequence[FolderSample],
    settled: Sequence[FolderSample],
    rate: float,
    bound: int,
) -> None:
    """The figures of one phase: at its end, its cleanups and its saw, into the report."""
    last = samples[-1].usage
    _say_figures(stage, f"{phase} at its end", last)
    first_log = next((s for s in samples if (s.usage.oldest_batch or 0) > 0), None)
    first_state = next((s for s in samples if (s.usage.oldest_state_version or 1) > 1), None)
    drops = [
        (b.usage.newest_batch, a.usage.state_versions, b.usage.state_versions)
        for a, b in zip(samples, samples[1:])
        if b.usage.state_versions < a.usage.state_versions
    ]
    counts = [s.usage.state_versions for s in settled]
    sizes = [s.usage.total_bytes for s in settled]
    files = [s.usage.total_files for s in settled]
    stage.fact(
        phase,
        {
            "end": last.to_dict(),
            "batches_per_sec": round(rate, 2),
            "samples": len(samples),
            "first_log_cleanup_at_batch": first_log.usage.newest_batch if first_log else None,
            "first_state_cleanup_at_batch": first_state.usage.newest_batch if first_state else None,
            "state_versions_steady": [min(counts, default=None), max(counts, default=None)],
            "state_bound": bound,
            "files_steady": [min(files, default=None), max(files, default=None)],
            "bytes_steady": [min(sizes, default=None), max(sizes, default=None)],
            "state_drops": drops[:20],
        },
    )
    stage.say(
        f"{phase}: {rate:.2f} batches/s; logs first trimmed at batch "
        f"{first_log.usage.newest_batch if first_log else '—'}, state first cleaned at "
        f"batch {first_state.usage.newest_batch if first_state else '—'}; steady: state "
        f"versions {min(counts, default='—')}..{max(counts, default='—')}, files "
        f"{min(files, default='—')}..{max(files, default='—')}; drops e.g. "
        + (", ".join(f"{a}→{b}" for _, a, b in drops[:5]) or "none")
    )
    if first_state is not None:
        stage.timeline.event(f"{phase}: first state cleanup", "note", at=first_state.at)


def _say_figures(stage: Stage, when: str, usage: CheckpointUsage) -> None:
    parts = ", ".join(
        f"{name}/ {usage.files[name]} files {usage.bytes[name] / 1024:.0f} KB"
        for name in usage.files
        if usage.files[name]
    )
    stage.say(
        f"{when}: batch {usage.newest_batch}, {usage.total_files} files, "
        f"{usage.total_bytes / 1024:.0f} KB ({parts}); offsets/ entries "
        f"{usage.offsets_entries} (batches {usage.oldest_batch}..{usage.newest_batch}), "
        f"commits/ {usage.commits_entries}, state versions {usage.state_versions} "
        f"(from v{usage.oldest_state_version})"
    )


def _range_text(samples: Sequence[FolderSample], *names: str) -> str:
    parts = []
    for name in names:
        values = [getattr(s.usage, name) for s in samples]
        parts.append(
            f"{name.replace('_', ' ')} {min(values)}..{max(values)}" if values else f"no {name}"
        )
    return ", ".join(parts)


def _size_text(samples: Sequence[FolderSample]) -> str:
    sizes = [s.usage.total_bytes for s in samples]
    return f"{min(sizes) / 1024:.0f}..{max(sizes) / 1024:.0f} KB over {len(samples)} samples"


SCENARIO = Scenario(
    name="checkpoint-growth",
    title="a soak of many batches: retention, maintenance and the extra-space ratio bound the "
    "folder",
    summary="The count runs hundreds (--fast) or thousands of batches while the checkpoint "
    "folder is measured by sub-folder. On HDFS, offsets/ and commits/ stay at "
    "minBatchesToRetain and maintenance keeps state near it (the ratio is ignored); on "
    "RocksDB, ratioExtraSpaceAllowedInCheckpoint lets 30% more versions pile up before "
    "a bunch is deleted; a stopped query cleans nothing; a restart with ratio 0 catches "
    "up and keeps state near N.",
    origin="Spark 4's checkpoint retention (ratioExtraSpaceAllowedInCheckpoint)",
    about="whether a checkpoint folder grows forever over thousands of batches, and what cleans it",
    run=run,
    takes="about 3 min: a soak of hundreds of batches, so that retention and maintenance run "
    "many times",
    options=(
        ScenarioOption(
            "--batches", int, "the HDFS soak's length in batches (default 2000, 110 with --fast)"
        ),
    ),
)
