"""Seed 000's slow checkpoint storage: S3 writes of 1 to 20 s under a 1 s trigger.

Seed 000's DStream app checkpointed to S3, where a write took 1 to 20 s (log-normal, mean
2.6 s) against a 1 s batch. The DStream checkpoint writer queued the writes in memory and the
app died of an out-of-memory error after about 22 hours. Here the Spark app runs with
`--checkpoint-latency lognormal:mean=2.6s,min=1s,max=20s`, on Spark's real write path: batches
take longer than the trigger, Spark warns that it is falling behind, the lag between Kafka's
latest offset and the checkpoint's grows to a batch's worth and stays there, and the live heap
stays flat: Structured Streaming plans the next batch only after the last one is committed, so
nothing queues. Then the remedies, measured in the same run.

Memory is the heap that survives a full collection, read from the driver JVM's GC log
(`--gc-log`), not the processes' resident size: the JVM grows its heap when collections cost it
time, as on a busy CI machine, and the resident size then climbed by 480 MiB in a minute while
the live heap stayed at 70 MiB. The resident size is still recorded, to show the difference.

Usage: `python -m scenarios run slow-checkpoint --fast`
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from pathlib import Path

from scenarios.catalog import steps
from scenarios.checker.expectations import check
from scenarios.engine.faults.s3_requests import S3Request, S3Requests
from scenarios.engine.observers.memory import RssSampler
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.lines.batch_line import durations_in_output
from spark_app.lines.gc_log import FILE_NAME as GC_LOG  # in the log folder, first start only
from spark_app.lines.gc_log import PERIODIC_FULL_GC_SEC, LiveHeap, live_heaps
from spark_app.runtime.checkpoint_latency import LatencySpec

__all__ = ["SCENARIO", "run", "SEED_LATENCY"]

SEED_LATENCY = "lognormal:mean=2.6s,min=1s,max=20s"
FALLING_BEHIND = "Current batch is falling behind"
LONG_TRIGGER_SEC = 20.0
# The trigger as the steps' words say it (a constant, so the question sheet shows it too).
LONG_TRIGGER = f"{LONG_TRIGGER_SEC:g} s"


def run(stage: Stage) -> None:
    t = stage.timings
    with stage.step(
        steps.start_kafka(
            happens=f"a broker and the producer, a message every {t.interval_sec:g} s; "
            "retention long enough to keep everything",
            why="a steady input, so the lag is the app's doing",
            production="watch consumer lag against a known input rate: lag that grows while the "
            "input is steady points at the job, not at the producers",
            question="If the output falls behind the producer later, whose fault will it be?",
            answer="The app's: the input is one message per interval throughout, so any growing "
            "lag comes from the app's batches.",
            giveaway=("the app's:",),
            checks=(),
        )
    ):
        stage.kafka.start()
    with stage.step(
        steps.first_start(
            title="Start the Spark app with seed 000's S3 latency on every checkpoint write",
            happens=f"trigger {t.trigger_sec:g} s; each offsets/N, commits/N and state .delta "
            "file takes 1-20 s (mean 2.6 s) to land: on a local folder through "
            f"--checkpoint-latency {SEED_LATENCY}; with --checkpoint-store s3 a TCP proxy in "
            "front of s3proxy holds each upload that long, lets S3A's rename (a copy and a "
            "delete) go at the store's speed, and counts every request",
            watch="the app's batch lines below: each one's `took … ms` against the "
            f"{t.trigger_sec:g} s trigger, and its `behind latest: …`, batch after batch",
            why="every batch writes offsets/N before it runs and commits/N after it, plus the "
            "state store's delta: three slow writes in a row, about 8 s a batch. Spark's log "
            "says `Current batch is falling behind` for each; the driver's GC log shows the "
            "live heap after each full collection",
            production="measure your checkpoint store's write latency; an object store is not a "
            "local disk. On S3 a checkpoint file is an upload, a copy and a delete, and S3A "
            "adds dozens of HEAD and LIST requests a batch: at tens of milliseconds each on a "
            "real bucket, they cost a batch seconds before any slow upload",
            question="With 1-20 s per checkpoint write and a 1 s trigger, will the lag grow "
            "without end, and will the app's memory grow with it?",
            answer="Neither: batches take longer than the trigger and Spark warns it is falling "
            "behind, but the lag stays about a batch's worth and the live heap stays flat (all "
            "checked); each batch reads all that waits, no queue builds up.",
            giveaway=("neither", "stays flat", "a batch's worth", "no queue"),
            checks=(
                "batches take longer than the trigger",
                "Spark warns that the batch is falling behind",
                "the lag grows to about a batch's worth and stays there",
                "the live heap stays flat (the driver JVM's, after each full collection)",
            ),
        )
    ):
        _slow_storage(stage, batches=5 if stage.settings.fast else 10)
    _longer_trigger(stage)
    _async_progress(stage)


def _slow_storage(stage: Stage, batches: int) -> None:
    """Run `batches` batches on the slow store; check the lag, the batches and the memory."""
    on_s3 = stage.settings.checkpoint_store == "s3"
    requests = S3Requests(LatencySpec.parse(SEED_LATENCY)) if on_s3 else None
    if requests is not None:
        stage.store.start(tap=requests)
    process = stage.app.start(**_slow_writes(stage), gc_log=stage.folders.log / GC_LOG)
    started, since = stage.timeline.now(), time.monotonic()
    with RssSampler(process.pid or 0, interval=1.0) as rss:
        stage.output.wait_for_batches(batches)
    durations = list(durations_in_output(stage.app.output()).values())
    if requests is not None:
        _what_s3_costs(stage, requests.between(since, time.monotonic()), len(durations))
    stage.fact("slow_share_short_trigger", _share_slower(durations[1:], stage.timings.trigger_sec))
    _slow_batches(stage, durations)
    _lag_bounded(stage, started)
    _one_state_file_per_batch(stage)
    stage.app.stop()  # first: the JVM's log is complete once it has exited
    _memory_flat(stage, rss.samples, live_heaps(_gc_log_text(stage)))


def _slow_batches(stage: Stage, durations: list[int]) -> None:
    median = statistics.median(durations) if durations else 0
    stage.fact("batch_ms_median", median)
    stage.fact("batch_ms_max", max(durations, default=0))
    trigger_ms = stage.timings.trigger_sec * 1000
    stage.expect(
        check(
            "batches take longer than the trigger",
            median > trigger_ms,
            f"median batch > {trigger_ms:g} ms",
            f"median {median:g} ms",
        ),
    )
    warnings = _falling_behind(stage)
    stage.fact("falling_behind_warnings", warnings)
    stage.expect(
        check(
            "Spark warns that the batch is falling behind",
            warnings > 0,
            f"`{FALLING_BEHIND}` in spark.log",
            f"{warnings} warning(s)",
        ),
    )


def _lag_bounded(stage: Stage, since: float) -> None:
    lags = [
        s.latest - s.committed
        for s in stage.timeline.samples
        if s.at >= since and s.latest is not None and s.committed is not None
    ]
    half = len(lags) // 2
    early, late = max(lags[:half], default=0), max(lags[half:], default=0)
    stage.fact("lag_max_first_half", early)
    stage.fact("lag_max_second_half", late)
    # Each batch reads all that waits: the lag is about one batch's worth, not a growing queue.
    per_batch = stage.facts["batch_ms_max"] / 1000 / stage.timings.interval_sec
    stage.expect(
        check(
            "the lag grows to about a batch's worth and stays there",
            bool(lags) and late <= max(early * 1.5, per_batch * 2 + 2),
            f"second half's largest lag <= 1.5 x the first half's ({early})",
            f"{late} messages" if lags else "no sample of the committed offset",
        ),
    )


def _memory_flat(stage: Stage, rss: list[tuple[float, int]], heaps: list[LiveHeap]) -> None:
    """The live heap's last third against its middle third: a queue of pending writes, the
    DStream's, would grow it batch after batch. The resident size is a fact, never checked."""
    resident = _middle_and_last_third([round(r / 2**20) for _, r in rss])
    stage.fact("rss_mib_middle_end", list(resident))
    live = [h.mib for h in heaps]
    stage.fact("live_heap_mib", live)
    settled, end = _middle_and_last_third(live)
    # The resident size is said beside the live heap: the number a process monitor shows.
    stage.expect(
        check(
            "the live heap stays flat (the driver JVM's, after each full collection)",
            len(live) >= 3 and end <= settled * 1.25,
            f"last third <= 1.25 x middle third ({settled} MiB), at least 3 "
            f"collections (one after every {PERIODIC_FULL_GC_SEC} s without any)",
            f"{end} MiB, {len(live)} collections; resident size {resident[0]} then "
            f"{resident[1]} MiB",
        ),
    )


def _middle_and_last_third(values: list[int]) -> tuple[int, int]:
    """The largest value of the series' middle third and of its last (0 for an empty one)."""
    third = len(values) // 3
    return max(values[third : 2 * third], default=0), max(values[2 * third :], default=0)


def _gc_log_text(stage: Stage) -> str:
    log = stage.folders.log / GC_LOG
    return log.read_text(errors="replace") if log.exists() else ""


def _slow_writes(stage: Stage) -> dict[str, str]:
    """The app's option for the seed's latency: on S3 the proxy holds the uploads instead."""
    return {} if stage.settings.checkpoint_store == "s3" else {"checkpoint_latency": SEED_LATENCY}


def _what_s3_costs(stage: Stage, requests: list[S3Request], batches: int) -> None:
    """What S3A asked of the store while the `batches` ran: each checkpoint file is an upload
    of a temporary object, then a rename, which S3 does not have: a copy and a delete."""
    batches = max(batches, 1)
    kinds = Counter(r.kind for r in requests)
    stage.fact("s3_requests", dict(kinds))
    per_batch = {k: round(n / batches, 1) for k, n in sorted(kinds.items())}
    stage.fact("s3_requests_per_batch", per_batch)
    median_ms = {
        kind: round(statistics.median(answered) * 1000)
        for kind in kinds
        if (
            answered := [
                r.answered_sec for r in requests if r.kind == kind and r.answered_sec is not None
            ]
        )
    }
    stage.fact("s3_answer_ms_median", median_ms)
    held = [r.held_sec for r in requests if r.kind == "upload"]
    stage.fact("s3_upload_held_sec_mean", round(statistics.mean(held), 2) if held else None)
    stage.say(
        "S3 requests per batch: "
        + ", ".join(f"{n:g} {k}" for k, n in per_batch.items())
        + "; the store answered in (median ms): "
        + ", ".join(f"{k} {ms}" for k, ms in median_ms.items())
    )
    copies = kinds["copy"]
    temp_deletes = sum(r.kind == "delete" and r.path.endswith(".tmp") for r in requests)
    stage.expect(
        check(
            "each checkpoint file is an upload and a rename: a copy and a delete",
            copies == temp_deletes and copies >= 3 * (batches - 1),
            "a copy and a delete of its temporary object per file, 3 files a batch "
            "(offsets/N, commits/N, the state delta)",
            f"{copies} copies, {temp_deletes} temporary objects deleted, {batches} batches",
        ),
    )


def _one_state_file_per_batch(stage: Stage) -> None:
    files = stage.store.files(stage.folders.checkpoints)
    deltas = sorted(Path(f) for f in files if f.startswith("state/") and f.endswith(".delta"))
    versions = {d.stem for d in deltas}
    stage.fact("state_delta_files", len(deltas))
    stage.expect(
        check(
            "one state file per batch",
            len(deltas) == len(versions) and deltas != [],
            "one .delta per state version (spark.sql.shuffle.partitions = 1)",
            f"{len(deltas)} files for {len(versions)} versions",
        ),
    )


def _longer_trigger(stage: Stage) -> None:
    with stage.step(
        Step(
            f"Restart with a trigger longer than the writes ({LONG_TRIGGER})",
            happens="the same checkpoint and latency, restarted with --trigger-sec "
            f"{LONG_TRIGGER_SEC:g}",
            watch="the app's batch lines below, now about one per trigger: each one's `took … "
            f"ms` against the {LONG_TRIGGER} trigger, and how many messages it holds",
            why="a batch pays the checkpoint's latency once however many messages it holds: "
            "fewer, larger batches spend less of their time waiting for storage; a batch is "
            "slower than the trigger only when its writes draw near the 20 s maximum",
            production="set the trigger above your store's p99 write time; the end-to-end "
            "latency then is about the trigger",
            question="With a trigger longer than the writes, will more or fewer batches fall "
            "behind?",
            answer="Fewer: a smaller share of batches is slower than the trigger (checked); each "
            "batch pays the latency once for more messages.",
            giveaway=("fewer:", "smaller share"),
            checks=("fewer batches fall behind with the longer trigger",),
        )
    ):
        stage.app.start(trigger_sec=LONG_TRIGGER_SEC, **_slow_writes(stage))
        stage.output.wait_for_batches(3)
        # Not the first batch: it catches up and pays the restart's own writes.
        durations = list(durations_in_output(stage.app.output()).values())[1:]
        stage.fact("long_trigger_batch_ms", durations)
        before = stage.facts["slow_share_short_trigger"]
        after = stage.fact("slow_share_long_trigger", _share_slower(durations, LONG_TRIGGER_SEC))
        stage.expect(
            check(
                "fewer batches fall behind with the longer trigger",
                after < before,
                f"a smaller share of batches slower than the trigger than {before:.0%}",
                f"{after:.0%} of {len(durations)}",
            )
        )
        stage.app.stop()


def _share_slower(durations_ms: list[int], trigger_sec: float) -> float:
    """The share of batches that took longer than the trigger (each one a falling-behind warning)."""
    if not durations_ms:
        return 0.0
    return sum(ms > trigger_sec * 1000 for ms in durations_ms) / len(durations_ms)


def _async_progress(stage: Stage) -> None:
    with stage.step(
        Step(
            "Consider asynchronous progress tracking",
            happens="nothing runs: Spark's asyncProgressTrackingEnabled writes offsets/N and "
            "commits/N in the background, so a batch no longer waits for them",
            watch="the producer's lines below, still coming; the app is stopped",
            why="Spark's documentation limits it to stateless queries writing to the Kafka "
            "sink, and it gives up end-to-end exactly-once: after a failure a batch's offset "
            "range can change. This counter keeps its count in state, writes with "
            "foreachBatch, and its exactly-once sink relies on a replay reading the same range",
            production="for a stateless Kafka-to-Kafka job on slow storage, "
            "asyncProgressTrackingEnabled with asyncProgressTrackingCheckpointIntervalMs hides "
            "the latency; for a stateful one use a longer trigger, or faster checkpoint storage",
            question="Could asyncProgressTrackingEnabled speed up this counter and keep "
            "exactly-once?",
            answer="No: Spark limits it to stateless queries writing to the Kafka sink, and it "
            "gives up exactly-once, since a batch's range can change after a failure. Nothing "
            "runs in this step.",
            giveaway=("stateless", "gives up"),
            checks=(),
        )
    ):
        pass  # a question to discuss: the answer is Spark's documentation, not a run


def _falling_behind(stage: Stage) -> int:
    return stage.app.spark_log().count(FALLING_BEHIND)


SCENARIO = Scenario(
    name="slow-checkpoint",
    title="checkpoints on slow storage: batches fall behind, the live heap stays flat; the "
    "remedies",
    summary="Every checkpoint write takes seed 000's S3 latency (1-20 s, mean 2.6 s) under a 1 s "
    "trigger: batches take seconds, Spark warns it is falling behind, the lag holds at "
    "a batch's worth and the live heap stays flat (no queue, unlike the DStream's); a "
    "longer trigger stops the warnings.",
    origin="seed 000's S3 checkpoints",
    about="seed 000's checkpoints on S3, where a write took 1 to 20 s against a 1 s trigger: "
    "what slow checkpoint storage does to a streaming query, and what helps",
    run=run,
    takes="about 2.5 min: every checkpoint write waits 1 to 20 s (the lesson's latency, not "
    "shortened); five batches at a 1 s trigger, three at 20 s",
    checkpoint_stores=("local", "s3"),
)
