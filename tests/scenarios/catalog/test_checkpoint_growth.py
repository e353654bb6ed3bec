"""checkpoint-growth without Spark: the folder sampler on checkpoint folders written here in
Spark's layout, and the scenario's checks on made-up series of samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.checkpoint_growth import soak_for
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
from scenarios.engine.timeline import Timeline
from scenarios.report.timeline import render as render_timeline


def write(path: Path, text: str = "x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def checkpoint_of(
    root: Path,
    batches: range,
    state_versions: range,
    snapshots: tuple[int, ...] = (),
    zips: bool = False,
) -> Path:
    """A checkpoint as Spark leaves it: the logs with Hadoop's hidden .crc beside each entry,
    state/0/0 with a delta (or RocksDB zip) per version, metadata, sources/0/0."""
    cp = root / "checkpoints"
    write(cp / "metadata", '{"id":"q"}')
    write(cp / "sources" / "0" / "0", "v1\n{}")
    for batch in batches:
        for log in ("offsets", "commits"):
            write(cp / log / str(batch), "v1\n" + "o" * 100)
            write(cp / log / f".{batch}.crc", "c")
    partition = cp / "state" / "0" / "0"
    for version in state_versions:
        name = f"{version}.zip" if zips else f"{version}.delta"
        write(partition / name, "d" * 10)
        write(partition / f".{name}.crc", "c")
    for version in snapshots:
        write(partition / f"{version}.snapshot", "s" * 50)
    write(partition / "_metadata" / "schema", "schema")
    if zips:
        write(partition / "SSTs" / "000008-abc.sst", "sst")
    write(cp / "state" / "0" / "_metadata" / "metadata", "op")
    return cp


def test_measure_counts_every_file_by_sub_folder_and_what_a_user_counts(tmp_path: Path) -> None:
    cp = checkpoint_of(tmp_path, range(70, 101), range(66, 102), snapshots=(70, 76))
    usage = measure(cp)
    assert usage.files == {
        "offsets": 62,
        "commits": 62,
        "state": 36 * 2 + 2 + 2,
        "sources": 1,
        "other": 1,
    }
    assert usage.bytes["offsets"] == 31 * (103 + 1)
    assert usage.bytes["state"] == 36 * 11 + 2 * 50 + len("schema") + len("op")
    assert usage.total_files == sum(usage.files.values())
    assert usage.total_bytes == sum(usage.bytes.values())
    # ls offsets/: 31 entries, 70..100; the .crc are not entries.
    assert (usage.offsets_entries, usage.commits_entries) == (31, 31)
    assert (usage.oldest_batch, usage.newest_batch) == (70, 100)
    # A snapshot at a version that has a delta is still one version.
    assert (usage.state_versions, usage.oldest_state_version) == (36, 66)
    assert usage.to_dict()["total_files"] == usage.total_files


def test_measure_counts_rocksdb_versions_by_their_zips(tmp_path: Path) -> None:
    usage = measure(checkpoint_of(tmp_path, range(5), range(1, 6), zips=True))
    assert (usage.state_versions, usage.oldest_state_version) == (5, 1)
    assert usage.files["state"] == 5 * 2 + 1 + 1 + 1  # zips and .crc, schema, SST, op metadata


def test_measure_of_a_folder_not_there_yet_is_empty(tmp_path: Path) -> None:
    usage = measure(tmp_path / "nothing")
    assert usage.total_files == 0 and usage.total_bytes == 0
    assert usage.newest_batch is None and usage.state_versions == 0


def test_listing_and_what_changed_between_two(tmp_path: Path) -> None:
    cp = checkpoint_of(tmp_path, range(3), range(1, 4))
    before = listing(cp)
    assert before["offsets/0"] == 103 and "state/0/0/.1.delta.crc" in before
    assert unchanged_problem(before, listing(cp)) is None
    (cp / "offsets" / "0").unlink()
    write(cp / "offsets" / "3", "v1")
    write(cp / "commits" / "1", "longer than before" * 10)
    changed = unchanged_problem(before, listing(cp))
    assert changed == "deleted ['offsets/0']; new ['offsets/3']; resized ['commits/1']"


def test_sampler_samples_by_phase_into_its_list_and_the_timeline(tmp_path: Path) -> None:
    cp = checkpoint_of(tmp_path, range(3), range(1, 4))
    timeline = Timeline()
    sampler = CheckpointSampler(timeline, lambda: cp, interval=0.05)
    sampler.phase = "soak"
    first = sampler.sample()
    assert first.phase == "soak" and first.usage.offsets_entries == 3
    sampler.phase = "stopped"
    with sampler:  # the thread samples at once, then every interval
        sampler.start()  # idempotent
        for _ in range(100):
            if len(sampler.of("stopped")) >= 2:
                break
            sampler._stop.wait(0.05)
    sampler.stop()  # idempotent
    assert len(sampler.of("soak")) == 1 and len(sampler.of("stopped")) >= 2
    assert len(timeline.folder_points) == len(sampler.samples)
    assert timeline.folder_points[0].files["offsets"] == 6


def test_the_timeline_draws_the_folder_panel(tmp_path: Path) -> None:
    timeline = Timeline()
    timeline.sample(0, 10, 5)
    timeline.folder({"offsets": 2, "state": 4}, 1000)
    timeline.event("start 1", "start")
    timeline.event("found later", "note", at=0.0)
    picture = render_timeline(timeline, tmp_path / "growth.svg", "checkpoint-growth").read_text()
    assert "files in offsets/" in picture and "size (KB, right axis)" in picture


# -- the checks, on made-up samples -----------------------------------------------------------------


def usage(
    batch: int,
    entries: int = 30,
    versions: int = 30,
    size: int = 1000,
    oldest_version: int | None = None,
) -> CheckpointUsage:
    return CheckpointUsage(
        files={"offsets": 2 * entries},
        bytes={"offsets": size},
        offsets_entries=entries,
        commits_entries=entries,
        oldest_batch=batch - entries + 1,
        newest_batch=batch,
        state_versions=versions,
        oldest_state_version=oldest_version or batch - versions + 2,
    )


def series(values: list[dict[str, int]], per_sec: float = 2.0) -> list[FolderSample]:
    return [FolderSample(i / per_sec, "soak", usage(**v)) for i, v in enumerate(values)]


def test_bounds_are_what_a_user_computes() -> None:
    assert log_bound(100) == 100 + MARGIN
    # HDFS: N, a snapshot interval (snapshot after 10 deltas: every 11), and a minute of
    # batches twice: the snapshot waits for a maintenance, and so does the cleanup.
    assert hdfs_state_bound(100, 10, 60.0) == 100 + 11 + 2 * 60 + MARGIN
    # RocksDB: N, round(N x 0.3) = 30 stale, the one that tips it, one maintenance of batches.
    assert rocksdb_state_bound(100, 0.3, 4.2) == 100 + 30 + 1 + 5 + MARGIN
    assert rocksdb_state_bound(30, 0.0, 2.0) == 30 + 1 + 2 + MARGIN


def test_batch_rate_and_steady() -> None:
    samples = series([{"batch": b} for b in range(0, 100, 2)], per_sec=1.0)  # 2 batches a second
    assert batch_rate(samples) == pytest.approx(2.0)
    assert batch_rate(samples[:1]) == 0.0
    assert [s.usage.newest_batch for s in steady(samples, 95)] == [96, 98]


def test_log_problems() -> None:
    ok = series([{"batch": b, "entries": e} for b, e in ((60, 31), (61, 32), (62, 29))])
    assert log_problems(ok, 30) == []
    grown = series([{"batch": 60, "entries": 31}, {"batch": 90, "entries": 61}])
    assert log_problems(grown, 30) == [
        "offsets/ held 31..61 entries",
        "commits/ held 31..61 entries",
    ]
    assert log_problems([], 30) == ["no offsets samples", "no commits samples"]


def test_state_problems() -> None:
    samples = series([{"batch": 60, "versions": v} for v in (31, 39, 35)])
    assert state_problems(samples, 41) == []
    assert state_problems(samples, 38) == ["up to 39 state versions"]
    assert state_problems([], 38) == ["no state samples"]


def test_plateau_holds_for_a_saw_and_not_for_a_folder_that_grows() -> None:
    saw = series([{"batch": b, "size": 37_000 + (b % 7) * 300} for b in range(60, 120)])
    assert plateau_problem(saw) is None
    growing = series([{"batch": b, "size": 1000 * b} for b in range(60, 120)])
    assert plateau_problem(growing) == "grew from 99000 to 119000 bytes"
    assert plateau_problem(saw[:4]) == "only 4 samples"


def test_ratio_problem() -> None:
    assert ratio_problem([31, 39, 34], [31, 33], 30, 0.3) is None
    assert ratio_problem([31, 35], [31, 33], 30, 0.3) == "peak 35 with ratio 0.3, below 38"
    assert (
        ratio_problem([31, 39], [31, 39], 30, 0.3) == "peak 39 with ratio 0, not below 39 with 0.3"
    )
    assert ratio_problem([], [31], 30, 0.3) == "0 and 1 samples"


def test_caught_up_after_a_restart() -> None:
    # Stopped at batch 102 with versions from 68; the restart's first maintenance deletes them.
    samples = series(
        [
            {"batch": 102, "versions": 36, "oldest_version": 68},
            {"batch": 103, "versions": 37, "oldest_version": 68},
            {"batch": 105, "versions": 30, "oldest_version": 76},
        ]
    )
    assert caught_up_after(samples, 102, 68) == 3
    assert caught_up_after(samples[:2], 102, 68) is None


def test_soak_for_fast_seed_and_a_chosen_length() -> None:
    fast, seed = soak_for(True), soak_for(False)
    assert (fast.retain, fast.hdfs_maintenance_sec, fast.trigger_sec) == (30, 1.0, 0.2)
    assert fast.hdfs_batches + fast.rocksdb_batches + fast.ratio_zero_batches >= 200
    assert (seed.retain, seed.ratio, seed.hdfs_batches) == (100, 0.3, 2000)
    # The seed's HDFS soak runs on Spark's defaults: only the trigger is said.
    assert seed.app_options("hdfs") == {"trigger_sec": 1.0}
    assert fast.app_options("rocksdb", ratio=0.0) == {
        "trigger_sec": 0.2,
        "state_store": "rocksdb",
        "min_batches_to_retain": 30,
        "maintenance_sec": 1.0,
        "extra_space_ratio": 0.0,
    }
    assert soak_for(True, batches=500).hdfs_batches == 500
    assert soak_for(True, batches=5).hdfs_batches == 3 * 30  # never too short to show cleanup
