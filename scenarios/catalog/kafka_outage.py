"""Seed 000's network outage: Spark cut off from Kafka, a supervisor, and catching up.

Seed 000's app lost its network to Kafka; it died, Spark's supervised mode restarted it, and it
caught up from the offsets in its checkpoint with nobody touching it. Here a proxy of ours sits
between the Spark app and the broker (the producer writes to the broker directly, so messages
keep arriving during the outage). A short cut is ridden out by the Kafka source's retries, as
Spark's connector rides it out (`fetchOffset.numRetries`, `kafkaConsumer.pollTimeoutMs`): the
app never stops. A long cut makes it fail with KAFKA_UNREACHABLE; the supervisor restarts it
with backoff until Kafka answers, and it catches up, every message exactly once. Then an outage
longer than retention: the restart meets data loss, which no restart can fix, and the
supervisor stops instead of looping.

The connector's own bounds are minutes (3 retries of up to 60 s each; 120 s for a read); the
scenario sets them to seconds with the same options, so its outages can be short.

With a user's query (`--query FILE.py`) the cuts, the supervisor and the give-up are the same:
they are the source's and the checkpoint's. After the two cuts the check is that the app caught
up with Kafka; at the end, once the supervisor gave up, the oracle judges the query's rows
against the query over every record up to the checkpoint's last commit (what follows it was
never read: deleted by retention, or sent after the app stopped).

Usage: `python -m scenarios run kafka-outage --fast`
"""

from __future__ import annotations

import time
from collections.abc import Callable

from launch.waiting import wait_until
from scenarios.catalog import steps
from scenarios.checker.expectations import check, rows_until_last_commit
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.errors import DataLossError
from spark_app.supervisor import GIVE_UP, SAY_PREFIX, GiveUpLine, RestartLine, supervisor_lines

__all__ = ["SCENARIO", "run", "RETRY_OPTIONS"]

# The connector's retry options, shortened: a look-up gives up after about 3 x 5 s + 2 x 1 s,
# a read after 8 s without progress, and a task's consumer after 5 s without finding its
# position (default.api.timeout.ms: measured on the connector, a 3 s cut with 2 s failed the
# batch). request.timeout.ms goes down with default.api.timeout.ms:
# Kafka's admin client refuses an API timeout below the request timeout (30 s by default), and
# the connector's query then fails as it starts (found on Apache Kafka with the connector).
RETRY_OPTIONS = (
    "fetchOffset.numRetries=3",
    "fetchOffset.retryIntervalMs=1000",
    "kafka.default.api.timeout.ms=5000",
    "kafka.request.timeout.ms=5000",
    "kafkaConsumer.pollTimeoutMs=8000",
)
GIVE_UP_AFTER = 2
SHORT_CUT_SEC = 3.0
LONG_CUT_SEC = 40.0
# The cuts as the steps' words say them (a constant, so the question sheet shows them too).
SHORT_CUT = f"{SHORT_CUT_SEC:g} s"
LONG_CUT = f"{LONG_CUT_SEC:g} s"


def run(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            title="Start Kafka, the producer, and a proxy between the Spark app and Kafka",
            happens="the broker gets a second listener that tells its clients to come back "
            "through the proxy, as Kafka's advertised listeners do; the producer writes directly",
            why="an outage between one consumer and Kafka leaves Kafka and the producers "
            "running: the messages pile up, waiting to be read",
            production="the same holds for any network partition; retention must outlast it",
            question="Why does the app reach Kafka through a proxy while the producer writes "
            "directly?",
            answer="So that a cut reaches the app alone, as a partition between one consumer and "
            "the cluster does: Kafka and the producer go on, and what is sent meanwhile waits in "
            "Kafka to be read.",
            giveaway=("reaches the app alone",),
            checks=(),
        )
    ):
        stage.kafka.start(behind_proxy=True)
    with stage.step(
        steps.first_start(
            title="Start the Spark app under its supervisor",
            happens="python -m spark_app --supervise, with the connector's retry options set to "
            f"seconds: {', '.join(RETRY_OPTIONS)}",
            watch="the app's batch lines below, `batch N: Experience-0 [from, until) …`; its "
            "supervisor's lines, if any, start with `supervisor:`",
            why="spark-submit --supervise restarts a failed driver; ours does the same, and waits "
            "longer before each new attempt",
            production="run streaming jobs supervised (cluster mode with --supervise, or your "
            "orchestrator's restart policy)",
            question="If the app exits with an error, who starts it again, and how soon?",
            answer="Its supervisor (python -m spark_app --supervise), after a wait that doubles "
            "with each failure (1 s, 2 s, 4 s here); its lines start with `supervisor:`.",
            giveaway=("doubles",),
            checks=(),
        )
    ):
        process = stage.app.start(
            supervise=True,
            max_backoff_sec=4.0,
            give_up_after=GIVE_UP_AFTER,
            source_options=RETRY_OPTIONS,
        )
        stage.output.wait_for_value(stage.timings.run_for_messages)
    _short_outage(stage)
    _long_outage(stage)
    _so_far_exactly_once(stage)
    _outage_longer_than_retention(stage)
    stage.fact("restarts", len(_restart_lines(process.output())))


def _short_outage(stage: Stage) -> None:
    with stage.step(
        Step(
            f"Cut the network for {SHORT_CUT}",
            happens="the proxy drops every connection and refuses new ones, then lets them "
            "through again; the source's look-ups and reads retry meanwhile",
            watch="the app's batch lines below, during the cut and after it; any "
            "`supervisor: …` line",
            why="the connector retries offset look-ups fetchOffset.numRetries times and waits "
            "kafkaConsumer.pollTimeoutMs for a read before it fails the query",
            production="the defaults (3 x 60 s, 120 s) ride out a broker restart or a short "
            "partition; a longer one fails the query",
            question=f"Will a {SHORT_CUT} cut make the app fail and the supervisor restart it?",
            answer="No: the source's retries ride it out, with no restart (checked), and the "
            "count goes on.",
            giveaway=("ride it out", "ridden out", "rode out", "no restart"),
            checks=("the app rode out the short outage",),
        )
    ):
        before = _restarts(stage)
        _outage(stage, SHORT_CUT_SEC, "the short outage")
        stage.output.wait_for_more(3)
        after = _restarts(stage)
        stage.expect(
            check(
                "the app rode out the short outage",
                after == before,
                "no restart",
                f"{after - before} restart(s)",
            )
        )


def _long_outage(stage: Stage) -> None:
    with stage.step(
        Step(
            f"Cut the network for about {LONG_CUT}",
            happens="the proxy drops every connection and refuses new ones, for longer than the "
            "source's retries last, then lets them through again",
            watch="the app's lines below and its supervisor's, `supervisor: …`, during the cut; "
            "then the app's batch lines again",
            why="KAFKA_UNREACHABLE is retriable: the supervisor restarts the app with backoff "
            "(1 s, 2 s, 4 s) and does not count it as a crash loop, the outage may end; each "
            "start fails fast while Kafka is unreachable, and once the network is back one gets "
            "through and resumes from the checkpoint's offsets",
            production="alert on restarts; the backlog is read at full speed after the outage "
            "(cap it with maxOffsetsPerTrigger if a batch must stay small)",
            question="Cut for longer than the retries last, with which error will the app fail, "
            "and what will its supervisor do?",
            answer="KAFKA_UNREACHABLE, and every restart the supervisor makes is for it "
            "(checked); once the network is back a start catches up from the checkpoint.",
            giveaway=("kafka_unreachable", "unreachable"),
            checks=("the supervisor restarted the app because Kafka was unreachable",),
        )
    ):
        before = _restarts(stage)

        def until_restarted() -> None:
            wait_until(
                lambda: _restarts(stage) > before,
                timeout=LONG_CUT_SEC,
                what="the app to fail and the supervisor to restart it",
                progress=stage.waiting,
            )

        _outage(stage, LONG_CUT_SEC / 2, "the rest of the long outage", first=until_restarted)
        stage.output.wait_for_more(3)
        reasons = [line.reason for line in _restart_lines(stage.app.output())]
        stage.fact("restart_reasons", reasons[-3:])
        unreachable = bool(reasons) and all(r.startswith("KAFKA_UNREACHABLE") for r in reasons)
        stage.expect(
            check(
                "the supervisor restarted the app because Kafka was unreachable",
                unreachable,
                "every restart: KAFKA_UNREACHABLE",
                "; ".join(r[:80] for r in reasons[-3:]) or "no restart",
            )
        )


def _so_far_exactly_once(stage: Stage) -> None:
    with stage.step(
        Step(
            "Check the output log after the two cuts",
            happens="the scenario verifies the output log while the producer keeps sending",
            watch="the app's batch lines below, and the producer's, going on",
            why="the failed batches were replayed from the checkpoint; the exactly-once sink "
            "kept each message's lines once",
            production="an outage costs time, not data, as long as retention outlasts it",
            question="After two outages and the restarts, will any value be missing or doubled?",
            answer="None: every message so far exactly once, counts consistent (checked).",
            giveaway=("none:", "so far exactly once"),
            checks=("every message so far exactly once",),
        )
    ):
        if stage.query is not None:  # a query's rows name no value: the oracle's, at the end
            _caught_up(stage)
            return
        report = stage.output.wait_for_more(3)
        stage.fact("highest_after_outages", report.highest)
        stage.expect(
            check(
                "every message so far exactly once",
                report.ok and not report.missing and not report.duplicated,
                f"1..{report.highest} each once, counts consistent",
                f"missing {len(report.missing)} range(s), duplicated {len(report.duplicated)}, "
                f"{len(report.count_breaks)} count break(s)",
            )
        )


def _outage_longer_than_retention(stage: Stage) -> None:
    t = stage.timings
    with stage.step(
        Step(
            "Cut the network for longer than retention",
            happens=f"retention becomes {t.retention_sec:g} s and the network is cut until Kafka "
            "has deleted every offset it held at the cut, the checkpoint's among them; then "
            "retention goes back up and the network comes back",
            watch="the producer's lines below, their earliest offset climbing as retention "
            "deletes; once the network is back, the supervisor's `supervisor: …` lines",
            why="data loss is not retriable: no restart brings the deleted offsets back, so a "
            "supervisor that kept restarting would loop forever; this one sees the checkpoint "
            f"not moving and stops after {GIVE_UP_AFTER} failures at the same position",
            production="make retention longer than your longest outage; when it was not, "
            "decide: --fail-on-data-loss false (skip) or a new checkpoint (reset), see "
            "short-retention",
            question="When the checkpoint's offsets were deleted during the outage, will the "
            "supervisor keep restarting the app?",
            answer="No: each restart fails on KAFKA_DATA_LOSS, and after "
            f"{GIVE_UP_AFTER} failures at the same checkpoint position the supervisor gives up "
            "with a non-zero exit (checked).",
            giveaway=("gives up", "giving up", "give up"),
            checks=("the supervisor gives up on data loss",),
        )
    ):
        _past_retention(stage)


def _past_retention(stage: Stage) -> None:
    t = stage.timings
    stage.kafka.set_retention(t.retention_sec)
    stage.network.cut()
    # Past everything Kafka held at the cut, not only the checkpoint's offsets: the connector's
    # consumer keeps records it fetched beyond the planned batch and can finish batches with
    # them during the cut. CI saw both: a planned batch completed, then the next one read a
    # deleted offset from that buffer, and the app went on and never exited. Nothing it can
    # have fetched survives this wait, so its next batch must meet the deleted offsets.
    cut_at = stage.kafka.window().latest
    resume_at = stage.app.committed_offset() or 0
    planned = stage.app.planned_offset() or resume_at  # a pending batch ends past the commit
    aged = stage.kafka.wait_until_aged_out(max(planned, cut_at))
    stage.say(
        f"retention deleted offsets below {aged.earliest}; the checkpoint resumes at "
        f"{resume_at}, its last planned batch ends at {planned}, Kafka's latest at the "
        f"cut was {cut_at}"
    )
    stage.kafka.set_retention(t.endless_retention_sec)
    stage.network.restore()
    code = stage.app.wait_exit(kind="crash")
    output = stage.app.output()
    given_up = next(
        (line for line in supervisor_lines(output) if isinstance(line, GiveUpLine)), None
    )
    gave_up = f"{SAY_PREFIX}{GIVE_UP.text(given_up)}" if given_up else ""
    stage.fact("gave_up_line", gave_up)
    stage.expect(
        check(
            "the supervisor gives up on data loss",
            code != 0 and given_up is not None and DataLossError.token in given_up.reason,
            "a non-zero exit and `supervisor: giving up … KAFKA_DATA_LOSS…`",
            f"exit code {code}, {gave_up[:200] or 'no such line'}",
        )
    )
    if stage.query is not None:
        _judge_up_to_the_commit(stage)


def _caught_up(stage: Stage) -> None:
    """With a query: the app read and committed everything Kafka held after the cuts."""
    latest = stage.kafka.window().latest
    stage.output.wait_for_value(latest)
    committed = stage.app.committed_offset() or 0
    stage.fact("committed_after_outages", committed)
    stage.expect(
        check(
            "caught up after the cuts", committed >= latest, f"offset {latest} committed", committed
        )
    )


def _judge_up_to_the_commit(stage: Stage) -> None:
    """With a query, once the supervisor gave up: the oracle judges its rows against the query
    over every record up to the checkpoint's last commit. The records after it were never read
    (retention deleted some, the rest came after the app stopped), so they are left out."""
    verdict = stage.output.judge_query_until_last_commit()
    stage.expect(
        rows_until_last_commit("the query's rows exactly once up to the last commit", verdict)
    )


def _restart_lines(output: str) -> list[RestartLine]:
    return [line for line in supervisor_lines(output) if isinstance(line, RestartLine)]


def _restarts(stage: Stage) -> int:
    return len(_restart_lines(stage.app.output()))


def _outage(
    stage: Stage, seconds: float, what: str, first: Callable[[], None] | None = None
) -> None:
    """Cut the network, wait for `first` if given, hold the cut `seconds`, restore it."""
    stage.network.cut()
    if first is not None:
        first()
    _hold(stage, seconds, what)
    stage.network.restore()


def _hold(stage: Stage, seconds: float, what: str) -> None:
    """The outage itself: a span of time, not a condition to wait for."""
    end = time.monotonic() + seconds
    wait_until(
        lambda: time.monotonic() >= end,
        timeout=seconds + 5,
        what=what,
        progress=stage.waiting,
    )


SCENARIO = Scenario(
    name="kafka-outage",
    title="the network to Kafka is cut: a short cut is ridden out, a long one supervised",
    summary="A proxy between the Spark app and Kafka is cut for 3 s (the source's retries ride "
    "it out) and for 40 s (the app fails with KAFKA_UNREACHABLE; the supervisor "
    "restarts it with backoff until Kafka answers); every message exactly once; then "
    "an outage longer than retention: data loss, and the supervisor gives up.",
    origin="seed 000's network outage",
    about="seed 000's network outage: what the Spark app does when its link to Kafka is cut "
    "for a moment, for longer, and past the topic's retention",
    run=run,
    takes="about 2 min: two cuts of the network to Kafka; the long one lasts until the app "
    "gives up and its supervisor restarts it",
    # The cuts are between the source and Kafka, the restarts the supervisor's: any query's.
    takes_query=True,
    with_query=(
        "the network to Kafka cut for 3 s and for 40 s under the supervisor, then past "
        "retention until the supervisor gives up on data loss; after the cuts the app must "
        "catch up with Kafka; the oracle at the end over every record up to the checkpoint's "
        "last commit (the rest was never read)"
    ),
)
