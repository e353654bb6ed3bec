"""Backlog: the app was down while a large backlog piled up; four ways to catch it up on the
same checkpoint, measured side by side, exactly once throughout.

What production asks after an outage: "how do I catch up a huge backlog without one giant
batch?" Each way starts after the app was down while `python -m kafka_app --count N --burst`
sent a backlog (50,000 messages with --fast, 200,000 without), while the steady producer goes
on before and after it:

1. Uncapped (the default): the first batch after the restart reads the whole backlog. Its
   duration, the app's peak memory (driver, JVM and Python workers) and the lag at its end.
2. `maxOffsetsPerTrigger` (a tenth of the backlog): many bounded batches, the lag falling step
   by step, a lower peak.
3. `Trigger.AvailableNow` with the same cap: the same bounded batches up to the offsets Kafka
   held when the query started, then the query stops by itself (exit 0); messages sent during
   the backfill are left for the next run, which the normal trigger resumes from the checkpoint.
4. `minOffsetsPerTrigger` with `maxTriggerDelay`: with the steady producer's trickle the query
   waits for a minimum before it runs a batch: fewer, bigger batches. With AvailableNow the
   same minimum ends the backfill early: the tail below the minimum is not read (found by
   running it, on the connector and on our source alike).

The timeline shows Kafka's latest offset and the checkpoint's committed offset against time
for each way; the gap between them is the lag. Our Python source runs every part on PySpark
4.2 (it implements SupportsTriggerAvailableNow); on PySpark 4.0 and 4.1 a Python source has no
admission control, so there the capped parts are skipped, saying why.

Usage: `python -m scenarios run backlog --fast`
"""

from __future__ import annotations

from dataclasses import dataclass

from scenarios.catalog import steps
from scenarios.checker.expectations import check, exactly_once, value_at_offset
from scenarios.engine.observers.memory import RssSampler
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.batch_line import BatchLine, parse_batch_lines
from spark_app.runtime.spark_version import NEW_PYARROW_FROM, installed_spark_version

__all__ = [
    "SCENARIO",
    "BACKLOG",
    "FAST_BACKLOG",
    "CAP_SHARE",
    "MIN_WAITING",
    "Way",
    "capped_parts_unavailable",
    "run",
]

BACKLOG = 200_000  # large enough that one batch of it is slow and big on 2 cores
FAST_BACKLOG = 50_000
CAP_SHARE = 10  # maxOffsetsPerTrigger = the backlog / CAP_SHARE: about ten bounded batches
MIN_WAITING = 10  # minOffsetsPerTrigger for the steady trickle: ~10 producer intervals a batch
_LONG_DELAY = "5m"  # maxTriggerDelay: longer than the step, so only the minimum decides
_AVAILABLE_NOW = "available-now"


@dataclass(frozen=True)
class Way:
    """One way of catching up, as measured: the numbers of the docs' table."""

    name: str
    batches: int
    biggest: int
    biggest_ms: int
    catch_up_sec: float  # from the restart (a Spark start included) to the backlog committed
    batches_sec: float  # the batches' own durations, summed
    peak_mib: int  # the app's resident memory: driver, JVM, Python workers
    lag_at_end: int  # Kafka's latest offset minus the committed one, once caught up

    def row(self) -> dict[str, object]:
        return {
            "batches": self.batches,
            "biggest_batch": self.biggest,
            "biggest_batch_ms": self.biggest_ms,
            "catch_up_sec": round(self.catch_up_sec, 1),
            "batches_sec": round(self.batches_sec, 1),
            "peak_rss_mib": self.peak_mib,
            "lag_at_end": self.lag_at_end,
        }


def capped_parts_unavailable(source: str, spark_version: str) -> str:
    """Why the rate-limited parts cannot run on this stack, in one line ("" when they can)."""
    if source != "python":
        return ""
    major, minor = (int(p) for p in spark_version.split(".")[:2])
    if (major, minor) < NEW_PYARROW_FROM:
        return (
            f"PySpark {spark_version}'s Python data sources have no admission control "
            f"(ReadLimit came with 4.2): our source cannot cap a batch or run AvailableNow "
            f"in bounded batches; the connector (--stack …/connector) can"
        )
    return ""


# How a resumed query's batches are cut changes with its limits, never which offsets it reads.
_RESUME_WHY = (
    "each way changes how batches are cut, never which offsets are read: each batch starts at "
    "the last one's end, and a restart at the checkpoint's last committed end"
)


def run(stage: Stage) -> None:
    backlog = FAST_BACKLOG if stage.settings.fast else BACKLOG
    cap = stage.fact("max_offsets_per_trigger", backlog // CAP_SHARE)
    stage.fact("backlog", backlog)
    with stage.step(
        steps.start_kafka(
            happens="a broker and a steady producer; topic retention one hour, longer than the "
            "whole run",
            why="an offset is a message's address in its partition: a checkpoint names where to "
            "read next by one",
            production="retention must outlast the longest outage plus the catch-up, or the "
            "backlog's head is deleted before it is read (see short-retention)",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the next "
            "one; a backlog is the offsets after the one a checkpoint resumes from.",
            giveaway=("offset v-1",),
            checks=("value v sits at offset v-1",),
        )
    ):
        stage.kafka.start(retention_sec=stage.timings.endless_retention_sec)
        # Three messages at least, so that the check reads more than the first one.
        stage.kafka.wait_for_latest(3, "three messages in the topic")
        stage.expect(value_at_offset(stage.kafka.values_in_topic()))

    with stage.step(
        steps.first_start(
            title="Run the app on a new checkpoint, then stop it",
            happens="the app runs a few batches on a new checkpoint and is stopped with SIGTERM",
            question="Once it has stopped, where will the messages sent meanwhile wait, and what "
            "will its checkpoint hold of them?",
            answer="They wait in Kafka only; the checkpoint holds just the offset to resume "
            "from, the one after the last value written: the backlog is everything after it.",
            giveaway=("in kafka only", "just the offset to resume"),
            checks=("checkpoint resumes after the last value written",),
        )
    ):
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)
        stage.app.stop()
        written = stage.output.verify().highest or 0
        resume_at = stage.app.committed_offset()
        stage.expect(
            check(
                "checkpoint resumes after the last value written",
                resume_at == written,
                f"offset {written} (values 1..{written} at offsets 0..{written - 1})",
                f"offset {resume_at}",
            )
        )

    with stage.step(
        Step(
            f"While the app is down, {backlog:,} messages arrive; restart it uncapped",
            happens=f"python -m kafka_app --count {backlog} --burst sends the backlog in seconds; "
            "the app restarts on the same checkpoint with its defaults (no rate limit)",
            watch="the app's batch lines below: how many there are, their rows=… and how long "
            "each took",
            why="without a limit the source plans each batch up to Kafka's latest offset: the "
            "first batch after a restart is everything that waited",
            production="an uncapped restart after an outage is one batch as big as the outage: "
            "its memory, its duration and its retry cost (a failed batch is replayed whole) grow "
            "with the backlog",
            question="How many batches does the backlog take, how long does the first one run, "
            "and what is the lag when it ends?",
            answer="One batch holds the whole backlog, and it is the longest batch of the run "
            "(4 to 8 s for 50,000 rows on 2 cores in our runs, quiet to loaded); every value "
            "once so far. The messages the steady producer sent meanwhile are the lag once it is "
            "committed; Spark's own maxOffsetsBehindLatest says 0: it counts from the latest "
            "offset the batch was planned with (docs/scenarios.md#backlog has the figures of "
            "each way).",
            giveaway=("one batch holds the whole backlog", "the longest batch"),
            checks=(
                "the first batch planned after the restart reads the whole backlog",
                "it is the longest batch of the run",
                "exactly once",
            ),
        )
    ):
        ways = [_uncapped(stage, backlog)]

    unavailable = capped_parts_unavailable(stage.settings.source, _spark_version(stage))
    if unavailable:
        stage.say(f"SKIPPED the capped ways: {unavailable}")
        stage.fact("skipped_parts", unavailable)
    else:
        with stage.step(
            Step(
                f"Another backlog of {backlog:,}; restart with --max-offsets-per-trigger {cap:,}",
                happens=f"the same checkpoint; each batch may read about {cap:,} offsets "
                "(maxOffsetsPerTrigger, shared over the partitions by their backlog)",
                watch="the app's batch lines below: how many there are, their rows=… and how "
                "long each took",
                why="the limit is applied when each batch is planned: the source ends the batch "
                "`cap` offsets after its start instead of at the latest offset",
                production="set maxOffsetsPerTrigger on any query that may restart after an "
                "outage: bounded batches, a bounded memory peak, and a failed batch replays only "
                "its cap; size it for a batch that fits the trigger interval",
                question=f"With maxOffsetsPerTrigger={cap:,}: how many batches, how big is the "
                "largest, and is the catch-up faster or slower than one giant batch?",
                answer=f"About {CAP_SHARE} batches of {cap:,} rows, none bigger, and every value "
                "once so far; the lag falls step by step. Not faster: in our runs each batch was "
                "far shorter than the giant one, but together they took longer (twice as long at "
                "50,000, 1.6 times at 200,000: each batch has a fixed cost), the catch-up from "
                "the restart as long at 200,000; the memory peak was no lower at 50,000, about "
                "340 MiB lower at 200,000 (docs/scenarios.md#backlog).",
                giveaway=(f"about {CAP_SHARE} batches", "not faster"),
                checks=(
                    "every batch reads at most the cap",
                    "the backlog takes many bounded batches",
                    "exactly once",
                ),
            )
        ):
            ways.append(_capped(stage, backlog, cap))

        with stage.step(
            Step(
                f"Another backlog of {backlog:,}; restart with --trigger available-now "
                f"--max-offsets-per-trigger {cap:,}",
                happens="another backlog; the app restarts with Trigger.AvailableNow and the same "
                "cap, while the steady producer goes on (the normal trigger resumes from the "
                "same checkpoint in the last step)",
                watch="the app's batch lines below, and its last line if it stops; the producer's "
                "latest number",
                why="AvailableNow is a trigger, not a source option: at the start the source is "
                "asked for its target once (prepareForTriggerAvailableNow, Kafka's latest offsets "
                "then) and never reads past it, so a producer that keeps sending cannot keep the "
                "backfill running",
                production="a backfill as a job: run it with AvailableNow (and a cap) from a "
                "scheduler, then start the normal trigger on the same checkpoint; nothing is "
                "read twice or skipped between the two",
                question="Does the backfill stop by itself, and does it read what the producer "
                "sends after it started?",
                answer="It stops by itself with exit 0 once it reached the offsets Kafka held at "
                "its start, in capped batches; what was sent during it is left for the next run; "
                "every value so far once.",
                giveaway=("stops by itself", "left for the next run"),
                checks=(
                    "the backfill stops by itself",
                    "it reads the backlog in capped batches",
                    "what arrived during the backfill is left for the next run",
                    "exactly once",
                ),
            )
        ):
            ways.append(_available_now(stage, backlog, cap))

        minimum_backlog = 2 * cap + cap // 2
        with stage.step(
            Step(
                f"A backlog of {minimum_backlog:,}; --trigger available-now with "
                f"--max-offsets-per-trigger {cap:,} and --min-offsets-per-trigger {cap:,}",
                happens=f"a backlog of two and a half caps; the app restarts with AvailableNow, "
                f"a cap and a minimum of {cap:,} each, and maxTriggerDelay {_LONG_DELAY}",
                watch="the app's batch lines below, and its last line if it stops",
                why="AvailableNow ends when the source plans no new batch; a minimum not reached "
                "plans none (the source returns the start as the end), so the backfill ends "
                "early. PySpark's ReadMinRows says so: the semantic does not work properly with "
                "Trigger.AvailableNow",
                production="do not give a backfill minOffsetsPerTrigger: it stops with the tail "
                "unread (nothing is lost, the next run reads it, but the backfill is not "
                "complete when the scheduler thinks it is)",
                question="Does the backfill read the whole backlog when the last part of it is "
                "smaller than the minimum?",
                answer=f"No: it stops with exit 0 after two batches of {cap:,}, leaving at least "
                f"{cap // 2:,} offsets unread; the next run reads them, once (the next step "
                "checks it).",
                giveaway=("stops with exit 0 after two batches", "unread"),
                checks=("the backfill stops early, with the tail below the minimum unread",),
            )
        ):
            _available_now_with_minimum(stage, minimum_backlog, cap)
    stage.fact("ways", {w.name: w.row() for w in ways})

    pace = stage.timings.interval_sec
    delay = _short_delay(stage)
    if unavailable:
        resume = Step(
            "Restart with the normal trigger; then stop the producer",
            happens="the processing-time trigger resumes on the same checkpoint, without limits: "
            "this stack's source has none. Then the producer stops and the scenario verifies "
            "the output against what was sent",
            watch="the app's batch lines below: where the first starts",
            why=_RESUME_WHY,
            production="rate limits and triggers may change on every restart without risk to "
            "exactly-once",
            question="Where does the normal trigger resume, and after all these restarts, was "
            "any message lost or counted twice?",
            answer="It resumes exactly where the last run ended; every value once, Count = 1..N.",
            giveaway=("resumes exactly where",),
            checks=("the normal trigger resumes where the last run ended", "exactly once"),
        )
    else:
        resume = Step(
            f"Restart with the normal trigger, --min-offsets-per-trigger {MIN_WAITING} and "
            f"--max-trigger-delay {delay}; then stop the producer",
            happens=f"the processing-time trigger resumes on the same checkpoint with "
            f"minOffsetsPerTrigger {MIN_WAITING} and maxTriggerDelay {delay}; the steady "
            f"producer sends a message every {pace:g} s, the trigger fires every "
            f"{stage.timings.trigger_sec:g} s. Then the producer stops and the scenario verifies "
            "the output against what was sent",
            watch="the app's batch lines below: where the first starts, then the rows=… of each "
            "and how far apart they come",
            why="minOffsetsPerTrigger is the source's read limit (ReadMinRows): when fewer "
            "offsets wait, the source returns the batch's start as its end and Spark plans no "
            "batch; maxTriggerDelay bounds how long it holds back; " + _RESUME_WHY,
            production="a minimum trades latency for fewer, bigger batches (fewer checkpoint and "
            "state files); always set maxTriggerDelay with it, or a quiet topic waits the "
            "connector's default 15 minutes. Rate limits and triggers may change on every "
            "restart without risk to exactly-once",
            question=f"Where does the normal trigger resume; with minOffsetsPerTrigger="
            f"{MIN_WAITING} and a trickle, how big are the batches; and after all these "
            "restarts, was any message lost or counted twice?",
            answer=f"It resumes exactly where the last run ended; every batch after the first "
            f"(which never waits) holds at least {MIN_WAITING} rows but the last, which the "
            "delay releases; every value once, Count = 1..N.",
            # The question sheet shows both branches: the one above already says where it resumes.
            giveaway=(f"at least {MIN_WAITING} rows", "which the delay releases"),
            checks=(
                "the normal trigger resumes where the last run ended",
                "every batch but the first and the last holds at least the minimum",
                "exactly once",
            ),
        )
    with stage.step(resume):
        _resume_with_minimum(stage, ways, delay, bounded=not unavailable)


def _spark_version(stage: Stage) -> str:
    return stage.settings.spark_version or installed_spark_version()


def _uncapped(stage: Stage, backlog: int) -> Way:
    target = stage.kafka.send_backlog(backlog).latest
    replayed = _pending_batch(stage)
    way, planned = _catch_up(stage, "uncapped", target, {})
    first = planned[0]
    stage.fact("uncapped_first_batch_rows", first.rows)
    stage.fact("uncapped_first_batch_ms", first.duration_ms)
    if replayed is not None:
        stage.say(
            f"batch {replayed} was planned by the last run and replayed first with the "
            "offsets it recorded"
        )
    stage.expect(
        check(
            "the first batch planned after the restart reads the whole backlog",
            first.rows >= backlog,
            f"rows >= {backlog:,} in one batch",
            f"batch {first.batch_id}: {first.rows:,} rows in {first.duration_ms} ms",
        )
    )
    stage.expect(
        check(
            "it is the longest batch of the run",
            first.duration_ms >= max(b.duration_ms for b in planned),
            "the backlog's batch took longest",
            f"{first.duration_ms} ms (longest {max(b.duration_ms for b in planned)} ms)",
        )
    )
    _exactly_once_so_far(stage)
    return way


def _capped(stage: Stage, backlog: int, cap: int) -> Way:
    target = stage.kafka.send_backlog(backlog).latest
    # A batch the last run planned but did not commit is replayed as recorded, uncapped:
    # `batches` leaves it out.
    way, batches = _catch_up(
        stage, "maxOffsetsPerTrigger", target, {"max_offsets_per_trigger": cap}
    )
    stage.expect(
        check(
            "every batch reads at most the cap",
            max(b.rows for b in batches) <= cap,
            f"rows <= {cap:,}",
            f"largest {max(b.rows for b in batches):,}",
        )
    )
    stage.expect(
        check(
            "the backlog takes many bounded batches",
            sum(1 for b in batches if b.rows == cap) >= CAP_SHARE - 1,
            f"at least {CAP_SHARE - 1} batches of {cap:,}",
            f"{sum(1 for b in batches if b.rows == cap)}",
        )
    )
    _exactly_once_so_far(stage)
    return way


def _available_now(stage: Stage, backlog: int, cap: int) -> Way:
    target = stage.kafka.send_backlog(backlog).latest
    started = stage.timeline.now()
    process = stage.app.start(trigger=_AVAILABLE_NOW, max_offsets_per_trigger=cap)
    with RssSampler(process.pid or 0, interval=0.5) as rss:
        code = stage.app.wait_exit()
    took = stage.timeline.now() - started
    batches = [b for b in _batches(stage) if b.rows]
    end = stage.app.committed_offset() or 0
    latest = stage.kafka.window().latest
    way = _way("AvailableNow", batches, took, rss.samples, latest - end)
    stage.fact("available_now_exit_code", code)
    stage.fact("available_now_committed_end", end)
    stage.fact("latest_when_available_now_ended", latest)
    stage.say(
        f"AvailableNow ran {len(batches)} batches in {took:.1f} s and exited with {code}; "
        f"it committed up to offset {end:,}, Kafka's latest is now {latest:,}"
    )
    stage.expect(
        check("the backfill stops by itself", code == 0, "exit 0, no SIGTERM", f"exit {code}")
    )
    stage.expect(
        check(
            "it reads the backlog in capped batches",
            bool(batches) and max(b.rows for b in batches) <= cap and end >= target,
            f"batches <= {cap:,} rows, up to at least offset {target:,}",
            f"{len(batches)} batches, largest "
            f"{max((b.rows for b in batches), default=0):,}, up to {end:,}",
        )
    )
    stage.expect(
        check(
            "what arrived during the backfill is left for the next run",
            end < latest,
            f"committed end < Kafka's latest ({latest:,})",
            f"{end:,}",
        )
    )
    _exactly_once_so_far(stage)
    return way


def _available_now_with_minimum(stage: Stage, backlog: int, cap: int) -> None:
    target = stage.kafka.send_backlog(backlog).latest
    stage.app.start(
        trigger=_AVAILABLE_NOW,
        max_offsets_per_trigger=cap,
        min_offsets_per_trigger=cap,
        max_trigger_delay=_LONG_DELAY,
    )
    code = stage.app.wait_exit()
    end = stage.app.committed_offset() or 0
    stage.fact("available_now_minimum_committed_end", end)
    stage.fact("available_now_minimum_left_unread", target - end)
    stage.say(
        f"the backfill exited with {code}, committed up to {end:,}; the backlog ended at "
        f"{target:,}: {target - end:,} offsets left unread"
    )
    stage.expect(
        check(
            "the backfill stops early, with the tail below the minimum unread",
            code == 0 and target - end >= cap // 2,
            f"exit 0, at least {cap // 2:,} of the backlog unread",
            f"exit {code}, {target - end:,} unread",
        )
    )


def _resume_with_minimum(stage: Stage, ways: list[Way], delay: str, bounded: bool) -> None:
    end = stage.app.committed_offset() or 0
    limits = {"min_offsets_per_trigger": MIN_WAITING, "max_trigger_delay": delay}
    if not bounded:
        stage.say(
            "SKIPPED the minimum: this stack's source has no read limits; the normal "
            "trigger resumes without one"
        )
    stage.app.start(**(limits if bounded else {}))
    resumed = stage.app.wait_while_up(
        lambda: next(iter(_batches(stage)), None), "the first batch after the restart"
    )
    start = sum(resumed.start.values()) if resumed.start else None
    stage.fact("resumed_from", start)
    stage.expect(
        check(
            "the normal trigger resumes where the last run ended",
            start == end,
            f"the first batch starts at {end:,}",
            f"{start}",
        )
    )
    stage.output.wait_for_batches(4)
    total = stage.stop_producer_and_drain()
    stage.app.stop()
    batches = [b for b in _batches(stage) if b.rows]
    middle = batches[1:-1]
    stage.fact("min_offsets_batch_rows", [b.rows for b in batches])
    if bounded:
        stage.expect(
            check(
                "every batch but the first and the last holds at least the minimum",
                bool(middle) and min(b.rows for b in middle) >= MIN_WAITING,
                f"rows >= {MIN_WAITING} between the first and the last batch",
                f"{[b.rows for b in batches]}",
            )
        )
    stage.expect(exactly_once(stage.output.verify_sent(), total))
    for way in ways:
        stage.say(
            f"{way.name}: {way.batches} batch(es), biggest {way.biggest:,} rows in "
            f"{way.biggest_ms} ms, caught up in {way.catch_up_sec:.1f} s from the restart "
            f"({way.batches_sec:.1f} s in batches), peak {way.peak_mib} MiB, lag "
            f"{way.lag_at_end:,} when it caught up"
        )


def _short_delay(stage: Stage) -> str:
    """maxTriggerDelay for the last run: long beside the producer's pace, short beside a wait."""
    return f"{round(2 * MIN_WAITING * stage.timings.interval_sec)}s"


def _catch_up(
    stage: Stage, name: str, target: int, options: dict[str, object]
) -> tuple[Way, list[BatchLine]]:
    """Start the app with `options`, sample its memory until it committed `target`, stop it;
    the way as measured, and the batches this start planned that read rows (a batch the last
    run planned and this start replayed first is not one of them)."""
    replayed = _pending_batch(stage)
    started = stage.timeline.now()
    process = stage.app.start(**options)
    with RssSampler(process.pid or 0, interval=0.5) as rss:
        stage.app.wait_while_up(
            lambda: (stage.app.committed_offset() or 0) >= target,
            f"the checkpoint to commit offset {target:,}",
            poll=0.2,
        )
    took = stage.timeline.now() - started
    lag = stage.kafka.window().latest - (stage.app.committed_offset() or 0)
    # The batch line comes from a listener just after the commit.
    stage.app.wait_while_up(lambda: _batches(stage) or None, "the batch lines")
    stage.app.stop()
    planned = [b for b in _batches(stage) if b.rows and b.batch_id != replayed]
    # The batches that caught up, up to the one that committed the backlog's end.
    caught = [b for b in planned if sum(b.start.values()) < target]
    way = _way(name, caught, took, rss.samples, lag)
    stage.say(
        f"{name}: caught up with offset {target:,} in {took:.1f} s from the restart, "
        f"{way.batches} batch(es), biggest {way.biggest:,} rows in {way.biggest_ms} ms, "
        f"peak {way.peak_mib} MiB, {lag:,} behind Kafka's latest then"
    )
    return way, planned


def _way(
    name: str, batches: list[BatchLine], took: float, samples: list[tuple[float, int]], lag: int
) -> Way:
    biggest = max(batches, key=lambda b: b.rows, default=None)
    return Way(
        name=name,
        batches=len(batches),
        biggest=biggest.rows if biggest else 0,
        biggest_ms=biggest.duration_ms if biggest else 0,
        catch_up_sec=took,
        batches_sec=sum(b.duration_ms for b in batches) / 1000,
        peak_mib=round(max((rss for _, rss in samples), default=0) / 2**20),
        lag_at_end=lag,
    )


def _pending_batch(stage: Stage) -> int | None:
    """The batch the last run planned (offsets/N) but did not commit: a restart replays it
    first, with the offsets it recorded, whatever the new limits say."""
    return read_checkpoint(stage.folders.checkpoints).pending_id


def _batches(stage: Stage) -> list[BatchLine]:
    return parse_batch_lines(stage.app.output())


def _exactly_once_so_far(stage: Stage) -> None:
    report = stage.output.verify()
    stage.expect(exactly_once(report, report.highest or 0))


SCENARIO = Scenario(
    name="backlog",
    title="a backlog after an outage: one giant batch, maxOffsetsPerTrigger, AvailableNow, "
    "minOffsetsPerTrigger",
    summary="The app is down while a backlog of 50k-200k messages arrives, four times on one "
    "checkpoint. Uncapped, the first batch reads it all (the longest batch of the run); "
    "maxOffsetsPerTrigger cuts it into bounded batches; AvailableNow backfills "
    "in capped batches up to the offsets of its start and stops by itself, then the "
    "normal trigger resumes there; minOffsetsPerTrigger makes fewer, bigger batches, and "
    "with AvailableNow ends the backfill early. Exactly once throughout.",
    origin="production: changing a live job",
    about="a large backlog piled up while the app was down: ways to catch it up on one "
    "checkpoint, side by side",
    run=run,
    takes="about 3 min: six Spark starts, each catching up a burst of messages (162,500 in "
    "all), one way of reading a backlog each",
)
