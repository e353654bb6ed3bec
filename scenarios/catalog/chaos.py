"""Chaos: kill -9 the Spark app again and again at random moments, and count what it costs.

Seed 001 says "feel free to stop/start/kill the running SparkApp in any way you want". This
scenario does it without mercy: N kill -9 at seeded random moments, each aimed at one of three
places in a micro-batch, each followed by a restart on the same checkpoint:

- batch boundary: just after a batch's console line (it is committed); nothing to replay;
- mid-batch: just after Spark wrote `offsets/N`, usually before the output; the restart runs
  batch N again with the same offsets;
- mid-write: the moment the output log grows, before Spark writes `commits/N`; the restart
  runs batch N again although its lines are already in the log.

Where each kill really landed is read afterwards from the checkpoint (the pending batch and
its offsets) and the output log (which of that batch's values it already holds). The first
run uses the exactly-once sink: nothing may be lost or doubled. The second run continues the
same query with `--sink at-least-once`: nothing may be lost, and the values of every batch a
kill caught between its output and its commit are written twice. Those duplicates are an
expected outcome; the scenario predicts them from where the kills landed and reports how many.

With a user's query (`--query FILE.py`) the run keeps the exactly-once half: a query's sink
writes each batch to a file of its own and writes it again on a replay (idempotent on the batch
id), and has no at-least-once mode. Where each kill landed is read from the checkpoint and the
query's batch files; a kill that landed after a batch's file and before its commit tells how
many rows an appending sink would have written twice. At the end the oracle judges the query's
rows against every record sent.

Usage: `python -m scenarios run chaos --fast --kills 3 --seed 7`
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import asdict

from scenarios.catalog import steps
from scenarios.checker.expectations import (
    check,
    duplicated_exactly,
    exactly_once,
    missing_exactly,
    value_at_offset,
)
from scenarios.checker.kill_landing import KillLanding
from scenarios.engine.faults.kills import (
    KILL_MOMENTS,
    kill_at,
    landing_of,
    query_output,
    wait_for_batches,
)
from scenarios.engine.scenario import Scenario, ScenarioOption
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.query_rows import batch_file

__all__ = ["SCENARIO", "run", "DEFAULT_SEED"]

DEFAULT_SEED = 1

# Said at the start of a run with a user's query: what it keeps of the two halves, and why.
_QUERY_HALF = (
    "with your query the run keeps the exactly-once half: a query's sink writes each batch to a "
    "file of its own and writes it again on a replay, and has no at-least-once mode; the rows an "
    "appending sink would have doubled are told from the kills, the oracle judges the rest"
)


def _moments(kills: int, rng: random.Random) -> list[str]:
    """Each of the three moments in turn, in a seeded random order."""
    moments: list[str] = []
    while len(moments) < kills:
        round_ = list(KILL_MOMENTS)
        rng.shuffle(round_)
        moments += round_
    return moments[:kills]


def _kill_and_restart(stage: Stage, sink: str, kills: int, rng: random.Random) -> list[KillLanding]:
    landings = []
    for number, moment in enumerate(_moments(kills, rng), start=1):
        wait_for_batches(stage, rng.randint(1, 2))
        stage.say(f"kill {number} of {kills}")
        landings.append(kill_at(stage, moment, rng))
        stage.app.start(sink=sink)
    stage.fact(f"kills_{sink}", [asdict(k) | {"landed": k.landed} for k in landings])
    tally = Counter(k.landed for k in landings)
    stage.say("kills landed: " + ", ".join(f"{n}× {where}" for where, n in tally.items()))
    return landings


def run(stage: Stage, *, kills: int | None = None, seed: int | None = None) -> None:
    kills = stage.fact("kills", kills if kills is not None else (2 if stage.settings.fast else 4))
    seed = stage.fact("seed", seed if seed is not None else DEFAULT_SEED)
    rng = random.Random(seed)
    # The run's own choice, said before any step: a learner can run it again with other ones.
    stage.say(f"{kills} kill(s) per sink, seed {seed} (`--kills N --seed S` to vary)")
    if stage.query is not None:
        stage.say(_QUERY_HALF)
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer, one message per interval; topic retention one "
            "hour, longer than the whole run",
            why="seed 001's scenario #1: with the data still in Kafka, a restart must catch up "
            "without missing or doubling anything, and every kill is only about the checkpoint",
            production="keep retention well above your restart time, so a crash loop can never "
            "turn into data loss",
            question="The producer sends 1, 2, 3, … as it runs. At which offset of the topic "
            "will value v be?",
            answer="At offset v-1: the topic's first offset is 0 and each message takes the next "
            "one; a batch's offsets name its values.",
            giveaway=("offset v-1",),
            checks=("value v sits at offset v-1",),
        )
    ):
        stage.kafka.start()
        # Three messages at least, so that the check reads more than the first one.
        stage.kafka.wait_for_latest(3, "three messages in the topic")
        stage.expect(value_at_offset(stage.kafka.values_in_topic()))

    with stage.step(
        Step(
            f"Exactly-once sink: {kills} kill -9 at random moments, a restart after each",
            happens="the app starts with the exactly-once sink; each kill is aimed at a batch "
            "boundary, at a batch in flight (just after offsets/N) or at the output (the moment "
            "the log grows, before commits/N); the app is started again after each",
            watch="the app's batch lines below, cut off by each kill, then the restarted app's "
            "first batch line: where its range starts",
            why="a restart runs the uncommitted batch again with exactly the same offsets; the "
            "exactly-once sink keeps a journal of (query id, batch id, log size) and rolls back "
            "or skips a batch it has already written",
            production="foreachBatch is at-least-once; make the output idempotent on the batch "
            "id (a transaction, a MERGE, or a journal like this one)",
            question="Which kill will cost a value, or write one twice: the one at a batch "
            "boundary, mid-batch, or mid-write?",
            answer="None of them: after the kills the log holds everything the checkpoint "
            "committed, every value exactly once; a replayed batch is rolled back or skipped by "
            "the sink's journal.",
            giveaway=("none of them",),
            checks=("the log holds everything the checkpoint committed", "exactly once"),
        )
    ):
        if stage.query is not None:
            _query_run(stage, kills, rng)
            return
        stopped = _exactly_once_run(stage, kills, rng)

    with stage.step(
        Step(
            f"At-least-once sink: the same query restarted with a plain append, {kills} more kills",
            happens="the same checkpoint, now with --sink at-least-once (the code inside "
            "foreachBatch may change between restarts); the same kind of random kills; then the "
            "producer stops and the app catches up",
            watch="the app's batch lines below, cut off by each kill, then the restarted app's "
            "first batch line: where its range starts",
            why="Spark guarantees that the batch runs again, not that its side effects happen "
            "once: without a journal the sink cannot tell a replay from a new batch",
            production="count the duplicates your sink can produce, or make it idempotent; a "
            "kill that lands elsewhere costs nothing, so duplicates come and go with luck",
            question="Which kills will write values twice now, and will any value be missing?",
            answer="Only those that landed after the output and before commits/N (and a stop "
            "that caught one): their batch's values are doubled, exactly as predicted from where "
            "each kill landed; nothing is missing and the last value is there.",
            giveaway=("after the output and before", "doubled"),
            checks=("missing values", "every message up to the last one", "duplicated values"),
        )
    ):
        _at_least_once_run(stage, kills, rng, stopped)


def _exactly_once_run(stage: Stage, kills: int, rng: random.Random) -> KillLanding:
    """Kills under the exactly-once sink; where the stop after them caught a batch, if it did."""
    stage.app.start(sink="exactly-once")
    _kill_and_restart(stage, "exactly-once", kills, rng)
    caught_up = stage.catch_up()
    stage.app.stop()
    report = stage.output.verify()
    stage.fact("exactly_once_highest", report.highest)
    stage.expect(
        check(
            "the log holds everything the checkpoint committed",
            (report.highest or 0) >= caught_up,
            f"highest value >= {caught_up}",
            f"highest value {report.highest}",
        )
    )
    stage.expect(exactly_once(report, report.highest or 0))
    # The producer goes on, so the stop may have caught a batch in flight: the next start
    # replays it, and the at-least-once sink would write its lines again.
    stopped = landing_of(stage, "SIGTERM")
    if stopped.batch_id is not None:
        stage.say(f"the stop caught a batch in flight: {stopped.describe()}")
    return stopped


def _query_run(stage: Stage, kills: int, rng: random.Random) -> None:
    """With a user's query: the kills under its sink (a file per batch), then the oracle."""
    stage.app.start()
    landings = _kill_and_restart(stage, "exactly-once", kills, rng)
    caught = [k for k in landings if k.file_rows is not None]
    rows = stage.fact("rows_an_appending_sink_would_double", sum(k.file_rows or 0 for k in caught))
    stage.say(
        f"{len(caught)} of {kills} kill(s) landed after a batch's file and before its commit"
        + (
            f": each replay wrote that file again, where an appending sink would have written "
            f"its {rows} row(s) a second time"
            if caught
            else ": no replay had a file to write again"
        )
    )
    stage.finish_exactly_once()
    # The query's side of "the log holds everything the checkpoint committed".
    committed = read_checkpoint(stage.app.checkpoint_view()).commit_ids
    folder = query_output(stage)
    missing = [n for n in committed if not batch_file(folder, n).exists()]
    stage.expect(
        check(
            "every batch the checkpoint committed has its file",
            bool(committed) and not missing,
            f"batch-N.jsonl for each of the {len(committed)} commits/N kept",
            f"none for batch(es) {missing}" if missing else f"{len(committed)} files",
        )
    )


def _at_least_once_run(stage: Stage, kills: int, rng: random.Random, stopped: KillLanding) -> None:
    """Kills under the at-least-once sink, then the end: nothing missing, duplicates predicted."""
    before = Counter(stage.output.verify().values)
    stage.app.start(sink="at-least-once")
    landings = _kill_and_restart(stage, "at-least-once", kills, rng)
    predicted = _predicted_duplicates(before, [stopped, *landings])
    final = stage.kafka.stop_producer()
    total = stage.fact("messages_sent", final.latest)
    stage.say(f"the producer stopped after {total} messages")
    stage.catch_up(total)
    stage.app.stop()
    report = stage.output.verify()
    doubled = stage.fact("duplicated_values", len(report.duplicated))
    stage.fact("extra_lines", sum(n - 1 for n in report.duplicated.values()))
    caught = sum(1 for k in landings if k.written)
    stage.say(
        f"{doubled} value(s) written more than once, from {caught} of {kills} kill(s) "
        f"that landed between the output and the commit"
        + (" and the stop before this run" if stopped.written else "")
    )
    stage.expect(missing_exactly(report, []))
    stage.expect(
        check(
            "every message up to the last one",
            report.highest == total,
            f"highest value {total}",
            f"highest value {report.highest}",
        )
    )
    stage.expect(duplicated_exactly(report, predicted))


def _predicted_duplicates(before: Counter[int], landings: list[KillLanding]) -> dict[int, int]:
    """A value written before a kill in a batch that was not committed is written once more."""
    times = {v: n for v, n in before.items() if n > 1}
    for landing in landings:
        for value, seen in landing.seen_before.items():
            times[value] = seen + 1
    return {v: n for v, n in sorted(times.items()) if n > 1}


SCENARIO = Scenario(
    name="chaos",
    title="kill -9 at random moments: exactly-once holds; at-least-once doubles what was caught",
    summary="N kill -9 of the Spark app at seeded random moments (batch boundary, mid-batch, "
    "mid-write), a restart after each; with the exactly-once sink nothing is lost or "
    "doubled; with the at-least-once sink nothing is lost and the duplicates are "
    "predicted from where each kill landed, and counted.",
    origin="seed 001 scenario #1",
    about="kill -9 at random moments of a micro-batch, first with an exactly-once sink, then "
    "with a plain append",
    run=run,
    takes="about 1.5 min: six Spark starts, each after a kill -9 at a random moment, in two "
    "sink modes",
    checkpoint_stores=("local", "hdfs", "s3"),
    takes_query=True,
    with_query=(
        "kill -9 at seeded moments of a batch (its boundary, just after `offsets/N`, the "
        "moment a batch file is written), a restart after each, with the query's own "
        "exactly-once sink only: it has no at-least-once mode, so the second half is not run; "
        "each kill's landing is read from the checkpoint and the batch files, and one that "
        "caught a batch after its file and before its commit counts the rows an appending "
        "sink would have written twice; every committed batch has its file, and the oracle at "
        "the end"
    ),
    options=(
        ScenarioOption("--kills", int, "kill -9 per sink (default 4, 2 with --fast)"),
        ScenarioOption(
            "--seed", int, f"seed of the random moments (default {DEFAULT_SEED})", metavar="S"
        ),
    ),
)
