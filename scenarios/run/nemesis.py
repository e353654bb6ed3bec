"""`python -m scenarios nemesis`: minutes of faults drawn by a seed, Jepsen's way, and one checker.

Told as a scenario of its own, with the stage, its narration and its report: Kafka and a
producer at a steady rate; the Spark app under the nemesis's own supervision
(scenarios/run/nemesis_loop.py); then, for `--minutes`, the faults of the seed's schedule
(scenarios/engine/faults/schedule.py), each applied and healed (appliers.py); then the producer
stops, the app catches up, and one checker judges everything sent
(scenarios/checker/nemesis_verdict.py, or with `--query` the oracle). Every fault, its heal and
every start and exit of the app go to `nemesis-history.jsonl` in the run's folder, and the
timeline draws the faults as bands.

Usage:
    plan = plan_nemesis(seed=7, minutes=2, asked=FAULT_KINDS, setup=Setup.of(settings, 1, False))
    scenario = nemesis_scenario(plan)    # run it with scenarios/run/runner.py
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

from kafka_app.sent_records import SENT_RECORDS_FILE, read_sent_records
from scenarios.checker.expectations import check
from scenarios.checker.fault_history import HISTORY_FILE, fault_spans, read_history, recoveries
from scenarios.checker.nemesis_verdict import (
    Acked,
    KafkaDeletion,
    deletions_from_samples,
    judge_nemesis,
    lost_offset_ranges,
)
from scenarios.checker.sent_record import read_topic
from scenarios.engine.faults.appliers import CLUSTER_MASTER, DISK_MIB, Setup, unavailable
from scenarios.engine.faults.schedule import FAULT_KINDS, Schedule, draw_schedule
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from scenarios.errors import ScenarioError
from scenarios.run.nemesis_loop import (
    HistoryLog,
    Supervision,
    applied_kinds,
    latest_committed,
    run_faults,
)
from spark_app.lines.data_loss_lines import skipped_ranges_in

__all__ = ["NAME", "NemesisPlan", "nemesis_scenario", "plan_nemesis", "replay_command"]

NAME = "nemesis"


@dataclass(frozen=True)
class NemesisPlan:
    """What a nemesis run was asked for, with the kinds this run can apply and why the others
    cannot; its schedule follows from it."""

    seed: int
    minutes: float
    kinds: tuple[str, ...]
    skipped_kinds: tuple[tuple[str, str], ...] = ()
    fast: bool = False
    retention_sec: float | None = None
    brokers: int = 1
    cluster: bool = False

    @property
    def schedule(self) -> Schedule:
        return draw_schedule(self.seed, self.minutes, self.kinds, self.fast)

    def lines(self) -> list[str]:
        """The kinds left out, then the schedule: what `--dry-run` prints."""
        skipped = [f"skipped: {kind}: {why}" for kind, why in self.skipped_kinds]
        return skipped + self.schedule.lines()


def plan_nemesis(
    seed: int,
    minutes: float,
    asked: Sequence[str],
    setup: Setup,
    *,
    fast: bool = False,
    retention_sec: float | None = None,
) -> NemesisPlan:
    """The plan of a run: the kinds `asked` split into those this run can apply and those it
    cannot (each with its reason); ScenarioError when none is left."""
    kinds = tuple(k for k in FAULT_KINDS if k in asked)
    skipped = tuple((k, why) for k in kinds if (why := unavailable(k, setup)) is not None)
    usable = tuple(k for k in kinds if k not in dict(skipped))
    if not usable:
        raise ScenarioError(
            "no fault asked for can be applied on this run: "
            + "; ".join(f"{k}: {why}" for k, why in skipped)
        )
    return NemesisPlan(
        seed, minutes, usable, skipped, fast, retention_sec, setup.brokers, setup.cluster
    )


def replay_command(plan: NemesisPlan, settings: RunSettings) -> str:
    """The command that runs the same schedule again: seed, kinds, stack, Spark line, store."""
    words = ["uv", "run", "python", "-m", "scenarios", NAME]
    words += ["--minutes", f"{plan.minutes:g}", "--seed", str(plan.seed)]
    words += ["--faults", ",".join(plan.kinds)]
    if settings.bootstrap_servers:
        words += ["--bootstrap-servers", settings.bootstrap_servers]
    words += ["--stack", settings.stack.replace("external/", "apache/")]
    if settings.spark_version:
        words += ["--spark", settings.spark_version]
    if settings.kafka_version:
        words += ["--kafka-version", settings.kafka_version]
    if settings.checkpoint_store != "local":
        words += ["--checkpoint-store", settings.checkpoint_store]
    if plan.brokers > 1:
        words += ["--brokers", str(plan.brokers)]
    if plan.cluster:
        words.append("--cluster")
    if plan.retention_sec is not None:
        words += ["--retention-sec", f"{plan.retention_sec:g}"]
    if settings.query is not None:
        words += ["--query", str(settings.query)]
    if plan.fast:
        words.append("--fast")
    return shlex.join(words)


def nemesis_scenario(plan: NemesisPlan) -> Scenario:
    return Scenario(
        name=NAME,
        title=f"{plan.minutes:g} min of faults drawn by seed {plan.seed}, one checker at the end",
        summary="A producer at a steady rate, the Spark app under a supervision that restarts it "
        f"whenever it is down, and faults drawn by seed {plan.seed} ({', '.join(plan.kinds)}), "
        "each applied and healed; then the producer stops, the app catches up, and one checker "
        "holds the output against every value Kafka acknowledged.",
        origin="Jepsen's random fault schedules, issue 54",
        about="many faults at random moments, one after another: does the count still hold "
        "every value exactly once?",
        run=partial(_story, plan=plan),
        kafka_brokers=plan.brokers,
        checkpoint_stores=("local", "hdfs", "s3"),
        takes_query=True,
        takes=f"about {plan.minutes + 1.5:g} min: {plan.minutes:g} min of faults, a Spark start "
        "after each kill, then the catch-up and the check",
    )


def _story(stage: Stage, plan: NemesisPlan) -> None:
    schedule = plan.schedule
    history_path = stage.folders.root / HISTORY_FILE
    replay = replay_command(plan, stage.settings)
    stage.fact("nemesis_plan", asdict(plan) | {"replay": replay, "history": str(history_path)})
    for line in plan.lines():
        stage.say(line)
    with HistoryLog(history_path, stage.timeline) as history:
        history.write("run", detail=replay)
        for kind, why in plan.skipped_kinds:
            history.write("skip", kind=kind, detail=why)
        with stage.step(_START):
            supervision = _start(stage, plan, history)
        with stage.step(_faults_step(plan)):
            applied = run_faults(stage, schedule, supervision, history, stage.say)
        with stage.step(_CHECK):
            _catch_up(stage, supervision)
            _judge(stage, plan, history_path, replay, supervision.restarts, applied_kinds(applied))


_START = Step(
    "Start Kafka, the producer, and the app under the nemesis's supervision",
    happens="a broker and the producer at a steady rate, then the Spark app; whatever a fault "
    "needs is set up first: a proxy in front of Kafka, the store behind its proxy, the "
    "checkpoint on a small disk of its own, three brokers, two executors",
    watch="the producer's lines and the app's batch lines below",
    why="the supervision lives in the nemesis's own process, outside the app's process group: "
    "a fault sent to the app's group never reaches it, and it never gives up",
    production="run a streaming job supervised, and keep the supervisor out of the job's own "
    "process group",
    question="Who starts the app again after a kill, and how soon?",
    answer="The nemesis's supervision: at once after a kill or a SIGTERM, after 1 s to 8 s "
    "when the app exits by itself and made no progress since its start.",
    giveaway=("nemesis's supervision: at once",),
    checks=(),
)


def _faults_step(plan: NemesisPlan) -> Step:
    return Step(
        f"{plan.minutes:g} min of faults drawn by seed {plan.seed}",
        happens=f"every few seconds the next fault of the schedule ({', '.join(plan.kinds)}) is "
        "applied, held, and healed; the app is started again whenever it is down",
        watch="the narration's `fault #N …` and `healed` lines between the app's batch lines",
        why="a seed replays the schedule, not the exact interleaving with Spark's batches: the "
        "same fault lands in whichever batch runs then, on this machine, at this load",
        production="outages come in bunches: a kill seconds after a restart, a cut during a "
        "commit; a job is only as sound as its worst interleaving",
        question="Which of these faults can lose a value or write one twice?",
        answer="None should: the checkpoint replays what was not committed and the sink writes "
        "each batch once; the next step's checker holds every value sent against the output.",
        giveaway=("none should",),
        checks=(),
    )


_CHECK = Step(
    "Stop the producer, let the app catch up, hold the output against everything sent",
    happens="the producer stops; the app, still supervised, catches up to Kafka's latest offset "
    "and stops; the checker reads the producer's acknowledgements, the topic and the output",
    watch="the app's batch lines below until they reach the last offset",
    why="the producer's acknowledgements are the truth about what was sent; what retention "
    "deleted before the app read it is named, anything else missing or doubled is a failure",
    production="hold a job's output against its source after an incident, not by eye",
    question="Will any value sent be missing or doubled after all these faults?",
    answer="None, when the checks below hold; otherwise the checker names what was lost or "
    "doubled and the fault after which the output went wrong, and the run prints the command "
    "that replays the schedule.",
    giveaway=("none, when",),
    checks=("Kafka kept every message it acknowledged", "every value sent counted exactly once"),
)


def _start(stage: Stage, plan: NemesisPlan, history: HistoryLog) -> Supervision:
    if "disk" in plan.kinds:
        stage.disk.mount(stage.folders.checkpoints, DISK_MIB)
    stage.kafka.start(
        retention_sec=plan.retention_sec,
        behind_proxy="kafka-cut" in plan.kinds,
        brokers=plan.brokers,
    )
    if "store-cut" in plan.kinds:
        stage.store.start(behind_proxy=True)
    options: dict[str, Any] = {}
    if plan.retention_sec is not None:
        options["fail_on_data_loss"] = False
    if plan.cluster:
        options["master"] = CLUSTER_MASTER
    supervision = Supervision(stage, history, options)
    supervision.start("first start")
    stage.output.wait_for_value(stage.timings.run_for_messages)
    return supervision


def _catch_up(stage: Stage, supervision: Supervision) -> None:
    """Stop the producer; supervise the app until it has committed Kafka's latest offset."""
    final = stage.kafka.stop_producer()
    stage.fact("messages_sent", final.latest)
    stage.say(f"the producer stopped at offset {final.latest}; the app catches up")
    deadline = time.monotonic() + 2 * stage.timings.spark_start_timeout_sec
    while (latest_committed(stage.timeline) or 0) < final.latest:
        if time.monotonic() > deadline:
            raise ScenarioError(
                f"the app did not catch up to offset {final.latest} within "
                f"{2 * stage.timings.spark_start_timeout_sec:g} s (committed "
                f"{latest_committed(stage.timeline)})"
            )
        supervision.tick()
        time.sleep(0.3)
    stage.app.stop()


def _judge(
    stage: Stage,
    plan: NemesisPlan,
    history_path: Path,
    replay: str,
    restarts: int,
    applied: dict[str, int],
) -> None:
    """One checker for the whole run, and the run's figures as the fact `nemesis`."""
    topic = stage.kafka.topic
    records = read_sent_records(stage.folders.log / SENT_RECORDS_FILE, topic)
    acked = [
        Acked(int(r.value), r.offset, r.timestamp_ms / 1000)
        for r in records
        if r.value.lstrip("-").isdigit()
    ]
    held = read_topic(stage.kafka.bootstrap_servers, topic).values
    earliest_end = stage.kafka.window().earliest  # after the read: retention only moves it up
    samples = stage.timeline.snapshot()[0]
    deletions = deletions_from_samples((s.at, s.earliest, s.committed) for s in samples)
    spans = fault_spans(read_history(history_path))
    short = plan.retention_sec is not None
    verdict = judge_nemesis(
        stage.output.verify(), acked, held, earliest_end, deletions, spans, short=short
    )
    stage.expect(
        check(
            "Kafka kept every message it acknowledged",
            not verdict.kafka_failed,
            "every acknowledged value in the topic, unless retention deleted it",
            "; ".join(verdict.summary_lines()[1:2]) if verdict.kafka_failed else "all of them",
        )
    )
    if stage.query is None:
        stage.expect(
            check(
                "every value sent counted exactly once",
                not verdict.spark_failed,
                "every value Kafka acknowledged once in the output"
                + (", less what retention deleted before the app read it" if short else ""),
                "; ".join(verdict.summary_lines()),
            )
        )
        for line in verdict.summary_lines():
            stage.say(f"checker: {line}")
        judged = verdict.to_dict()
    else:  # no output log to hold against the values: Kafka's check here, the oracle's below
        judged = {"ok": _judge_query(stage, deletions) and not verdict.kafka_failed}
        judged |= {"kafka_lost": verdict.to_dict()["kafka_lost"]}
    minutes = plan.minutes or 1.0
    stage.fact(
        "nemesis",
        {
            "seed": plan.seed,
            "minutes": plan.minutes,
            "kinds": list(plan.kinds),
            "skipped_kinds": [list(k) for k in plan.skipped_kinds],
            "faults_planned": len(plan.schedule.faults),
            "faults_applied": sum(applied.values()),
            "applied_by_kind": applied,
            "faults_per_minute": round(sum(applied.values()) / minutes, 2),
            "restarts": restarts,
            "verdict": judged,
            "recovery_sec": recoveries(spans, [(s.at, s.committed) for s in samples]),
            "replay": replay,
        },
    )
    if not all(c.held for c in stage.checks):
        stage.say(f"replay this schedule: {replay}")


def _judge_query(stage: Stage, deletions: Sequence[KafkaDeletion]) -> bool:
    """A user's query: the oracle over every record sent, less what Spark skipped because
    retention deleted it first (each skipped range must be one retention deleted unread)."""
    topic = stage.kafka.topic
    skipped = skipped_ranges_in(stage.app.spark_log())
    unread = lost_offset_ranges(deletions)
    stray = [(a, b) for a, b in skipped if not any(u0 <= a and b <= u1 for u0, u1 in unread)]
    verdict = stage.output.judge_query([f"{topic}:0:{a}-{b}" for a, b in skipped])
    stage.expect(
        check(
            "every value sent counted exactly once",
            verdict.ok and not stray,
            "the query's rows as its batch result over every record sent, less the ranges "
            "retention deleted before the app read them",
            "; ".join(verdict.summary_lines())
            + (f"; Spark skipped offsets retention had not deleted: {stray}" if stray else ""),
        )
    )
    return verdict.ok and not stray
