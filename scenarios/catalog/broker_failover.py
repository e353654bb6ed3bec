"""Broker failover: three Kafka brokers lose a partition's leader, once by the rules, once not.

The topic has three replicas, one on each broker. Part one keeps the rule (acks=all,
min.insync.replicas=2, unclean leader election off): the leader is killed with -9 mid-stream,
an in-sync follower takes over, the producer and the Spark app ride it out, and every message
is counted exactly once. Part two breaks all three: the producer sends with acks=1, the topic
takes min.insync.replicas=1 and unclean.leader.election.enable=true. Both followers stop, the
leader alone acknowledges messages and Spark reads them; the producer stops, the leader is
killed and the stale followers come back. Kafka elects one of them: the acknowledged messages
it never got are gone, and the partition's offsets go back below the offset Spark's checkpoint
has reached. The running app stops with KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED (on Spark's
connector a minute late: its admin client waits on the dead leader). Restarted with
failOnDataLoss=false it goes on from the new log end, and a producer starts again with the next
value of its own sequence: offsets read twice, no value missing, and the values Kafka lost stay
counted.

The producer is stopped over the election on purpose: a producer that goes on can refill the
partition past the checkpoint's offset before Spark looks, and then Spark skips the messages at
the reused offsets without any error (measured on apache/connector: 24 values, with
failOnDataLoss=true). docs/scenarios.md tells that run.

Needs three brokers: Apache Kafka (`--stack apache/connector` or `apache/python`).

Usage: `python -m scenarios run broker-failover --fast --stack apache/connector`
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kafka_app.message_line import parse_message
from scenarios.catalog import steps
from scenarios.checker.expectations import check, duplicated_exactly, exactly_once, missing_exactly
from scenarios.checker.verify import ValueRange
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.errors import PartitionOffsetChangedError, error_in_text
from spark_app.lines.data_loss_lines import offset_changes_in

__all__ = ["SCENARIO", "run"]

RULE = "acks=all + min.insync.replicas=2 + unclean.leader.election.enable=false"
CONDITION = PartitionOffsetChangedError.token
# From the election to the app's stop: Spark's connector waits out its admin client's 60 s
# default.api.timeout.ms on the dead leader (measured: 62 s), then retries the latest offset
# 3 times, 1 s apart; the rest is slack for a busy machine.
_REFUSAL_TIMEOUT_SEC = 180.0


def run(stage: Stage) -> None:
    _start(stage)
    _kill_the_leader(stage)
    _rule_kept(stage)
    _relax_the_rule(stage)
    alone = _leave_the_leader_alone(stage)
    election = _unclean_election(stage, alone)
    _spark_refuses(stage, alone, election)
    _spark_goes_on(stage, alone, election)
    _old_leader_returns(stage, alone)


# -- part one: the rule kept ----------------------------------------------------------------------
def _start(stage: Stage) -> None:
    with stage.step(
        steps.start_kafka(
            title="Start three Kafka brokers, a topic with a replica on each, and the counter",
            happens="three Apache Kafka nodes form a KRaft quorum; the producer creates the "
            "topic with replication factor 3 and sends with acks=all; min.insync.replicas is 2; "
            "then the app starts",
            watch="the brokers' and the producer's lines below; the narration's `partition 0: "
            "leader …, replicas […], in sync […]` line; then the app's batch lines",
            why="the leader takes every write and the followers copy it; a write with acks=all "
            "is acknowledged once every in-sync replica has it, and refused while fewer than "
            "min.insync.replicas are in sync",
            production=f"the rule for not losing acknowledged data: {RULE}, with replication "
            "factor 3, so one broker can die with nothing lost and nothing refused",
            question="With three replicas and min.insync.replicas=2, how many brokers can die "
            "before an acks=all send is refused?",
            answer="One: with two left the ISR still holds 2; a second death leaves one replica "
            "in sync, below min.insync.replicas, and sends are refused.",
            giveaway=("one:", "second death"),
            checks=(),
        )
    ):
        stage.kafka.start(brokers=3)
        replicas = stage.brokers.replicas()
        stage.fact("replicas", list(replicas.replicas))
        stage.say(
            f"partition 0: leader {replicas.leader}, replicas {list(replicas.replicas)}, "
            f"in sync {list(replicas.isr)}"
        )
        stage.app.start()
        stage.output.wait_for_value(stage.timings.run_for_messages)


def _kill_the_leader(stage: Stage) -> None:
    with stage.step(
        Step(
            "Part one: kill -9 the partition's leader mid-stream",
            happens="the leader's JVM is killed without a controlled shutdown, while the "
            "producer sends and the app reads; later it is started again",
            watch="the producer's and the app's lines below, around the kill; the narration's "
            "`broker … leads after … s` line",
            why="with acks=all every acknowledged message is on every in-sync replica, so the "
            "new leader has all of them: its log ends where the old one's acknowledged log "
            "ended. After the dead broker's session times out (9 s) the controller elects an "
            "in-sync follower, and the producer's pending send and the app's fetches fail over "
            "to it",
            production="a broker dying is routine: clients retry (delivery.timeout.ms) and the "
            "Spark connector's consumers re-fetch metadata; nothing to do by hand",
            question="After the leader dies, will the producer or the Spark app need a restart, "
            "and who becomes leader?",
            answer="Neither restarts: both ride it out, and an in-sync follower takes over (all "
            "checked).",
            giveaway=("neither restarts", "ride it out", "follower takes over"),
            checks=(
                "an in-sync follower took over",
                "the producer rode it out",
                "the app rode it out",
            ),
        )
    ):
        _failover(stage)


def _failover(stage: Stage) -> None:
    before = stage.brokers.replicas()
    assert before.leader is not None
    stage.fact("part1_killed_leader", before.leader)
    written = stage.output.verify().highest or 0
    started = time.monotonic()
    stage.brokers.kill(before.leader)
    new_leader = stage.brokers.wait_for_leader(other_than=before.leader)
    stage.fact("part1_failover_sec", round(time.monotonic() - started, 1))
    stage.fact("part1_new_leader", new_leader)
    stage.say(f"broker {new_leader} leads after {stage.facts['part1_failover_sec']} s")
    stage.expect(
        check(
            "an in-sync follower took over",
            new_leader in before.isr,
            f"one of {[n for n in before.isr if n != before.leader]}",
            f"broker {new_leader}",
        )
    )
    stage.output.wait_for_value(written + stage.timings.run_for_messages)
    running = stage.kafka.producer_running
    stage.expect(
        check(
            "the producer rode it out",
            running,
            "the same producer, still sending",
            "running" if running else "exited",
        )
    )
    stage.expect(
        check(
            "the app rode it out",
            stage.app.running,
            "the same Spark app, no restart",
            "running" if stage.app.running else "exited",
        )
    )
    stage.brokers.start([before.leader])
    stage.brokers.wait_for_isr(3)
    stage.say(f"broker {before.leader} is back as a follower and in sync again")


def _rule_kept(stage: Stage) -> None:
    with stage.step(
        steps.finish(
            title="Stop the producer, check the output log",
            happens="the producer stops; the app drains the topic and keeps running; the output "
            "log is held against what the producer sent",
            why="the failover lost nothing and repeated nothing: no acknowledged offset changed, "
            "so Spark's checkpointed offsets still point at the same messages",
            question="Will any value be missing or doubled after the failover?",
            answer="No: every value sent is in the output exactly once (checked).",
            production="after a broker failover, check the consumer's output against the "
            "producers' count once, not by eye",
            giveaway=("no: every value",),
        )
    ):
        total = stage.stop_producer_and_drain()
        stage.expect(exactly_once(stage.output.verify_sent(), total))


# -- part two: the rule broken ---------------------------------------------------------------------
def _relax_the_rule(stage: Stage) -> None:
    with stage.step(
        Step(
            "Part two: break all three guards",
            happens="the topic takes min.insync.replicas=1 and "
            "unclean.leader.election.enable=true; the producer starts again with acks=1",
            watch="the producer's lines below, from the producer started again with acks=1, and "
            "the app's batch lines",
            why="each guard covers a different hole: acks=1 is acknowledged by the leader alone; "
            "min ISR 1 lets the leader go on alone and lets consumers read what only it has "
            "(with min ISR 2, Kafka 4.1 keeps the high watermark where the ISR fell below it, "
            "KIP-966: measured, acks=1 sends were acknowledged and nobody could read them); "
            "unclean election lets a replica that is behind become leader",
            production="unclean election is off by default and should stay off for data you "
            "cannot lose; some teams turn it on to get a partition back after losing every "
            "in-sync replica, trading data for availability",
            question="With three healthy brokers, will anything change once the guards are off?",
            answer="Nothing visible: the app goes on writing every value once, as before "
            "(checked); the settings only matter once brokers fail.",
            giveaway=("nothing visible", "as before"),
            checks=("with three healthy brokers the app goes on as before",),
        )
    ):
        stage.kafka.set_topic_configs(
            {"min.insync.replicas": "1", "unclean.leader.election.enable": "true"},
            label="min ISR 1, unclean on",
        )
        stage.kafka.restart_producer(acks="1")
        report = stage.output.wait_for_more(stage.timings.run_for_messages)
        stage.expect(
            check(
                "with three healthy brokers the app goes on as before",
                stage.app.running and report.ok,
                "the app running, every value once, counts consistent",
                f"app {'running' if stage.app.running else 'exited'}; "
                + "; ".join(report.summary_lines()[1:]),
            )
        )


@dataclass(frozen=True)
class Alone:
    """The leader left alone in sync, and how far the app read from it."""

    leader: int
    followers: tuple[int, ...]
    acknowledged: int  # the partition's end offset on the leader when it was killed
    checkpoint: int  # the offset the app's checkpoint resumes from
    last_value: int  # the last value the producer was told was stored


def _leave_the_leader_alone(stage: Stage) -> Alone:
    with stage.step(
        Step(
            "Stop both followers, one after the other",
            happens="each follower shuts down cleanly while the producer sends with acks=1; then "
            "the producer stops, so that nothing but Kafka moves the offsets from here on",
            watch="the producer's lines and the app's batch lines below while each follower "
            "stops; the narration's `partition 0: leader …, in sync […]` line",
            why="the controller takes each stopped follower out of the ISR; with both gone the "
            "KRaft quorum has lost its majority, but the leader keeps serving: acks=1 sends are "
            "acknowledged, and with the ISR down to the leader its high watermark moves. The "
            "followers' logs end where each stopped: every message after that is on one disk "
            "only, though the producer was told it is stored",
            production="alert on UnderReplicatedPartitions and UnderMinIsrPartitionCount: with "
            "min.insync.replicas=2 these sends would have been refused instead",
            question="With both followers gone, will acks=1 sends still be acknowledged, and "
            "will Spark read them?",
            answer="Yes to both: the ISR shrinks to the leader alone (checked) and, with min ISR "
            "1, its high watermark moves, so the app reads and counts them (the scenario waits "
            "for its checkpoint to reach the leader's last offset).",
            giveaway=("yes to both", "shrinks to the leader", "alone in sync"),
            checks=("the leader is alone in sync",),
        )
    ):
        return _alone(stage)


def _alone(stage: Stage) -> Alone:
    replicas = stage.brokers.replicas()
    leader = replicas.leader
    assert leader is not None
    # In the order of the replica list: the controller's unclean election takes the first
    # live replica in that order, so the first one stopped (the most behind) is the one chosen.
    followers = tuple(n for n in replicas.replicas if n != leader)
    for follower in followers:
        stage.brokers.stop(follower)
        stage.output.wait_for_more(stage.timings.run_for_messages)
    alone = stage.brokers.replicas()
    stage.say(f"partition 0: leader {alone.leader}, in sync {list(alone.isr)}")
    stage.expect(
        check(
            "the leader is alone in sync",
            alone.isr == (leader,),
            f"ISR [{leader}]",
            f"ISR {list(alone.isr)}",
        )
    )
    stage.output.wait_for_more(stage.timings.run_for_messages)
    acknowledged = stage.kafka.stop_producer().latest
    checkpoint = stage.app.wait_while_up(
        lambda: _committed_past(stage, acknowledged),
        "the checkpoint to reach the leader's last offset",
    )
    # A message acknowledged while the producer was being stopped may miss its console line;
    # the app read every acknowledged one, so its output knows the last value sent (a CI run
    # sent 141 twice when the next producer started after the printed 140).
    last_value = max(_last_sent(stage), stage.output.verify().highest or 0)
    stage.fact("part2_leader", leader)
    stage.fact("part2_acknowledged_end", acknowledged)
    stage.fact("part2_checkpoint_offset", checkpoint)
    stage.say(
        f"broker {leader} acknowledged offsets up to {acknowledged}; the app read them "
        f"all, and its checkpoint resumes at {checkpoint}"
    )
    return Alone(leader, followers, acknowledged, checkpoint, last_value)


def _last_sent(stage: Stage) -> int:
    lines = (parse_message(line) for line in stage.kafka.producer_output().splitlines())
    sent = [line.value for line in lines if line is not None]
    assert sent, "the producer sent messages before it stopped"
    return sent[-1]


def _committed_past(stage: Stage, offset: int) -> int | None:
    committed = stage.app.committed_offset()
    return committed if committed is not None and committed >= offset else None


@dataclass(frozen=True)
class Election:
    """The unclean election's outcome: the new leader and where its log ends."""

    leader: int
    log_end: int
    at: float  # time.monotonic() when the new leader was seen


def _unclean_election(stage: Stage, alone: Alone) -> Election:
    with stage.step(
        Step(
            "kill -9 the leader; the two stale followers come back; Kafka elects one of them",
            happens="the last in-sync replica is killed; the two followers start again and "
            "elect a controller, which must choose a leader for the partition",
            watch="the brokers' lines below; the narration's `broker … leads after … s; its log "
            "ends at offset …` line",
            why="the controller finds no in-sync replica alive; unclean election is allowed, so "
            "it makes the first live replica in the replica list leader, with the log it has "
            "(its log says `UNCLEAN partition change`). That replica never got the messages "
            "only the old leader had: Kafka drops them, and the next messages will take the "
            "same offsets again",
            production="with unclean election off the partition would stay offline until the "
            "old leader came back with its data: unavailable, not lost. Choose per topic",
            question="When a stale follower becomes leader, what happens to Kafka's latest "
            "offset and to the messages only the old leader had?",
            answer="The latest offset falls back below the checkpoint's offset, and the "
            "acknowledged messages after the new leader's log end are lost (all checked).",
            giveaway=("falls back", "are lost", "below the checkpoint"),
            checks=(
                "a replica that was not in sync became leader",
                "acknowledged messages are lost",
                "offsets went back below the checkpoint",
            ),
        )
    ):
        return _elect(stage, alone)


def _elect(stage: Stage, alone: Alone) -> Election:
    stage.brokers.kill(alone.leader)
    started = time.monotonic()
    stage.brokers.start(alone.followers)
    new_leader = stage.brokers.wait_for_leader(other_than=alone.leader)
    elected_at = time.monotonic()
    stage.fact("part2_election_sec", round(elected_at - started, 1))
    log_end = stage.kafka.window().latest
    lost = ValueRange(log_end + 1, alone.acknowledged)
    stage.fact("part2_new_leader", new_leader)
    stage.fact("part2_new_leader_log_end", log_end)
    stage.fact("part2_lost_values", lost)
    stage.say(
        f"broker {new_leader} leads after {stage.facts['part2_election_sec']} s; its log "
        f"ends at offset {log_end}. Values {lost} were acknowledged by broker "
        f"{alone.leader} and are gone ({len(lost)} messages)"
    )
    stage.expect(
        check(
            "a replica that was not in sync became leader",
            new_leader in alone.followers,
            f"one of the stale followers {list(alone.followers)}",
            f"broker {new_leader}",
        )
    )
    stage.expect(
        check(
            "acknowledged messages are lost",
            log_end < alone.acknowledged,
            f"the new leader's log ends below {alone.acknowledged}",
            f"it ends at {log_end}",
        )
    )
    stage.expect(
        check(
            "offsets went back below the checkpoint",
            log_end < alone.checkpoint,
            f"below {alone.checkpoint}, where the checkpoint resumes",
            log_end,
        )
    )
    return Election(new_leader, log_end, elected_at)


def _spark_refuses(stage: Stage, alone: Alone, election: Election) -> None:
    with stage.step(
        Step(
            "The running Spark app meets offsets that went back",
            happens="nothing is done: the running app, with failOnDataLoss=true (the default), "
            "plans its next batch against the new leader",
            watch="the app's lines below: its next batch line, or its last line and what it "
            "names; on Spark's connector it takes about a minute",
            why="planning the next batch, Spark asks for the latest offset, finds it below the "
            "end of the last batch (it retries: `Found incorrect offsets`), writes the batch to "
            "offsets/N anyway and stops. On Spark's connector it comes late: its admin client "
            "knew only the dead leader (a metadata answer lists live brokers only) and waits "
            "out default.api.timeout.ms (60 s) before Spark builds a new one from the bootstrap "
            "list. The connector cannot tell an unclean election from a deleted and recreated "
            "topic: either way the offsets it has read no longer mean the messages it read. It "
            "only sees it if it looks while the latest offset is still below its own: had the "
            "producer gone on during those 60 s, the partition would have grown past the "
            "checkpoint's offset first, and Spark would have skipped the messages at the "
            "reused offsets without a word, failOnDataLoss=true or not",
            production="this stop is what you want: the checkpoint and Kafka disagree and "
            "someone must decide what to reprocess. Do not count on it: after an unclean "
            "election, compare the checkpoint's offsets (`spark_app inspect`) with the new "
            "leader's log end yourself",
            question="Will the running app go on, or stop, and with which error?",
            answer=f"It stops with a non-zero exit code and {CONDITION}: `Partition "
            "Experience-0 offset was changed from X to Y`, X the checkpoint's offset, Y the new "
            "leader's log end (all checked).",
            giveaway=("partition_offset_changed", "offset was changed", "it stops"),
            checks=(
                "the app stops",
                "the error is Spark's data-loss condition for a changed offset",
                "the error names the checkpoint's offset and the new log end",
            ),
        )
    ):
        _refusal(stage, alone, election)


def _refusal(stage: Stage, alone: Alone, election: Election) -> None:
    code = stage.app.wait_exit(timeout=_REFUSAL_TIMEOUT_SEC, kind="crash")
    stage.fact("part2_refusal_sec", round(time.monotonic() - election.at, 1))
    output = stage.app.output()
    # The app's last line, not the first error named: on the way the source may have warned
    # `Error in attempt 1 getting Kafka offsets: KAFKA_UNREACHABLE …` while no broker answered.
    named = error_in_text(_last_error_line(output))
    stage.expect(check("the app stops", code != 0, "a non-zero exit code", f"exit code {code}"))
    stage.expect(
        check(
            "the error is Spark's data-loss condition for a changed offset",
            isinstance(named, PartitionOffsetChangedError),
            CONDITION,
            named.token if named else "no error line",
        )
    )
    changes = offset_changes_in(output)
    stage.fact("error_offset_change", list(changes[-1]) if changes else None)
    expected = (alone.checkpoint, election.log_end)
    stage.expect(
        check(
            "the error names the checkpoint's offset and the new log end",
            bool(changes) and changes[-1] == expected,
            f"from {expected[0]} to {expected[1]}",
            f"from {changes[-1][0]} to {changes[-1][1]}" if changes else "no such words",
        )
    )


def _last_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("spark_app: ")]
    return lines[-1] if lines else ""


def _spark_goes_on(stage: Stage, alone: Alone, election: Election) -> None:
    with stage.step(
        Step(
            "Restart the app with failOnDataLoss=false; the producer goes on",
            happens="the app starts again on the same checkpoint with failOnDataLoss=false; a "
            "producer starts again at the next value of its own sequence (`--first-value`: "
            "after the topic's highest value it would send the lost values again)",
            watch="the restarted app's batch lines below, and the offset its first batch starts "
            "from; the producer's lines, and the offset its first message takes",
            why="Spark replays the batch it planned (from the checkpoint's offset back to the new "
            "log end), logs the same words as a warning in spark.log, drops the backwards range "
            "and goes on from the new log end: the planned batch pinned it. The producer's "
            "messages take the offsets the lost ones had, so offsets [new log end, checkpoint) "
            "are read twice, holding other messages the second time. What the app cannot undo: "
            "it counted messages Kafka no longer has",
            production="failOnDataLoss=false turns a loud stop into a warning. After an unclean "
            "election, reconcile downstream with the producers' own record of what they sent, "
            "or rebuild from a source of truth",
            question="With failOnDataLoss=false, will any value be missing or doubled in the "
            "output, and where do the lost values stand?",
            answer="None missing, none doubled, every value sent counted; the lost values are in "
            "the output but gone from Kafka, the producer's next message took the new log end's "
            "offset, and spark.log warns that the offset went back (all checked).",
            giveaway=("none missing", "none doubled", "gone from kafka"),
            checks=(
                "the producer's next message took the new log end's offset",
                "missing values",
                "duplicated values",
                "every value sent was counted",
                "the values Kafka lost are counted, and gone from Kafka",
                "spark.log warns that the offset went back",
            ),
        )
    ):
        _goes_on(stage, alone, election)


def _goes_on(stage: Stage, alone: Alone, election: Election) -> None:
    stage.app.start(fail_on_data_loss=False)
    first = alone.last_value + 1
    stage.kafka.restart_producer(acks="1", first_value=first)
    stage.output.wait_for_value(first + stage.timings.run_for_messages)
    # Not stop_producer_and_drain: Kafka's offsets no longer count the values sent.
    stage.kafka.stop_producer()
    last = _last_sent(stage)
    stage.output.wait_for_value(last)
    stage.app.stop()
    # Offset order from the earliest, which is 0 here (retention is endless): index = offset.
    in_kafka = stage.kafka.values_in_topic()
    at = in_kafka.index(first) if first in in_kafka else None
    stage.expect(
        check(
            "the producer's next message took the new log end's offset",
            at == election.log_end,
            f"value {first} at offset {election.log_end}",
            f"value {first} at offset {at}",
        )
    )
    report = stage.output.verify_sent()
    stage.fact("part2_offsets_read_twice", [election.log_end, alone.checkpoint])
    stage.expect(missing_exactly(report, []))
    stage.expect(duplicated_exactly(report, {}))
    stage.expect(
        check(
            "every value sent was counted",
            report.highest == last,
            f"highest {last}",
            f"highest {report.highest}",
        )
    )
    lost = ValueRange(election.log_end + 1, alone.acknowledged)
    gone = set(in_kafka) & set(range(lost.first, lost.last + 1))
    stage.expect(
        check(
            "the values Kafka lost are counted, and gone from Kafka",
            not gone and all(v in report.values for v in (lost.first, lost.last)),
            f"{lost} in the output, none of them in the topic",
            f"in the topic: {sorted(gone) or 'none'}",
        )
    )
    warned = offset_changes_in(stage.app.spark_log())
    stage.fact("spark_log_offset_changes", warned)
    stage.expect(
        check(
            "spark.log warns that the offset went back",
            (alone.checkpoint, election.log_end) in warned,
            f"`offset was changed from {alone.checkpoint} to {election.log_end}`",
            warned or "no such warning",
        )
    )


def _old_leader_returns(stage: Stage, alone: Alone) -> None:
    with stage.step(
        Step(
            "Start the old leader again",
            happens=f"broker {alone.leader}, the leader killed in the unclean election, starts "
            "again with the log it had",
            watch="the brokers' lines below, the old leader's among them; the narration's wait "
            "for an ISR of three",
            why="Kafka keeps one history per partition, the leader's: the old leader learns the "
            "new leader's epoch, truncates its log to where the new leader's diverged (its log "
            "says `Truncating`) and copies the new messages; the acknowledged messages are now "
            "gone from every broker",
            production="after an unclean election the lost messages can only come from the "
            "producers' side (their logs, an outbox table): plan for it or keep the rule",
            question="When the old leader comes back, will the messages only it had come back "
            "with it?",
            answer="No: Kafka keeps one history per partition, the new leader's; the old leader "
            "takes it and catches up, and the ISR is three again (checked).",
            giveaway=("one history", "truncat"),
            checks=("all three replicas in sync again",),
        )
    ):
        stage.brokers.start([alone.leader])
        replicas = stage.brokers.wait_for_isr(3)
        stage.expect(
            check(
                "all three replicas in sync again",
                len(replicas.isr) == 3,
                "ISR of three",
                f"ISR {list(replicas.isr)}",
            )
        )


SCENARIO = Scenario(
    name="broker-failover",
    title="a Kafka leader dies: acks=all rides it out; an unclean election loses acknowledged data",
    summary="Three Kafka brokers, replication factor 3. Killing the leader with acks=all and "
    "min.insync.replicas=2 loses nothing. With acks=1, min ISR 1 and unclean election "
    "on, a stale replica becomes leader: acknowledged messages vanish, offsets go back "
    "below Spark's checkpoint, the app stops with KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED, "
    "and restarted with failOnDataLoss=false it reads the reused offsets again while the "
    "lost messages stay counted.",
    origin="seed 002, known data-loss cases",
    about="seed 002's known data-loss cases: a Kafka partition's leader dies, once under the "
    "rule for not losing acknowledged data, once with that rule broken",
    run=run,
    takes="about 4 min: three Kafka brokers, a leader killed twice (acks=all, then acks=1 with "
    "unclean election), the app refused on data loss and restarted",
    kafka_brokers=3,
)
