"""Broker failover: three Kafka brokers lose a partition's leader, once by the rules, once not.

The topic has three replicas, one on each broker. Part one keeps the rule (acks=all,
min.insync.replicas=2, unclean leader election off): the leader is killed with -9 mid-stream,
an in-sync follower takes over, the producer and the Spark app ride it out, and every message
is counted exactly once. Part two breaks all three: the producer sends with acks=1, the topic
takes min.insync.replicas=1 and unclean.leader.election.enable=true. Both followers stop, the
leader alone acknowledges messages and Spark reads them; then the leader is killed and the
stale followers come back. Kafka elects one of them: the acknowledged messages it never got are
gone, and the partition's offsets go back below the offset Spark's checkpoint has reached. The
app stops with KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED; with failOnDataLoss=false it goes on
and skips the new messages that took offsets it had already read.

Needs three brokers: Apache Kafka (`--stack apache/connector` or `apache/python`).

Usage: `python -m scenarios run broker-failover --fast --stack apache/connector`
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

from kafka_app.message_line import ProducerLine, parse_message
from scenarios.checker.expectations import check, duplicated_exactly, exactly_once, missing_exactly
from scenarios.checker.verify import ValueRange
from scenarios.engine.registry import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.waiting import wait_until
from scenarios.report.narration import Step
from spark_app.errors import PartitionOffsetChangedError, error_in_text
from spark_app.settings import SPARK_LOG_FILE_NAME

__all__ = ["SCENARIO", "Rewind", "offset_changes_in", "rewind_in", "run"]

RULE = "acks=all + min.insync.replicas=2 + unclean.leader.election.enable=false"
CONDITION = PartitionOffsetChangedError.token
# The connector's words (KafkaOffsetReader's reportDataLoss), which our source says too.
_OFFSET_CHANGED = re.compile(r"offset was changed from (\d+) to (\d+)")
# The producer's next acknowledged send after the election; its retries take it there.
_REWIND_TIMEOUT_SEC = 180.0
# Planning the next batch after the rewind: the connector retries the latest offset 3 times,
# 1 s apart, before it gives up; a minute leaves room for a busy machine.
_REFUSAL_TIMEOUT_SEC = 120.0


@dataclass(frozen=True)
class Rewind:
    """Where the producer's acknowledged offsets went back: the last message the old leader
    acknowledged and the first one the new leader stored, at a lower offset."""

    last_value_before: int
    latest_before: int  # the partition's end offset after that message, on the old leader
    first_value_after: int
    offset_after: int  # where the new leader stored it: its log ended there

    @property
    def lost(self) -> ValueRange:
        """Values acknowledged, then gone: those the old leader held at offsets the new one
        did not have (value = offset + 1 on the old leader, as one partition gets every value)."""
        return ValueRange(self.offset_after + 1, self.last_value_before)


def rewind_in(lines: Iterable[ProducerLine]) -> Rewind | None:
    """The first place in the producer's lines where the partition's latest offset fell."""
    previous: ProducerLine | None = None
    for line in lines:
        if previous is not None and line.latest < previous.latest:
            return Rewind(previous.value, previous.latest, line.value, line.latest - 1)
        previous = line
    return None


def offset_changes_in(text: str) -> list[tuple[int, int]]:
    """(from, to) of every `offset was changed from X to Y` in a text (error or warning)."""
    return [(int(a), int(b)) for a, b in _OFFSET_CHANGED.findall(text)]


def run(stage: Stage) -> None:
    _start(stage)
    _kill_the_leader(stage)
    _rule_kept(stage)
    _relax_the_rule(stage)
    alone = _leave_the_leader_alone(stage)
    rewind = _unclean_election(stage, alone)
    _spark_refuses(stage, rewind)
    _spark_skips(stage, rewind)
    _old_leader_returns(stage, alone)


# -- part one: the rule kept ----------------------------------------------------------------------
def _start(stage: Stage) -> None:
    stage.step(Step(
        "Three Kafka brokers, a topic with a replica on each, and the counter",
        happens="three Apache Kafka nodes form a KRaft quorum; the producer creates the topic "
                "with replication factor 3 and sends with acks=all; min.insync.replicas is 2",
        watch="which broker leads partition 0 and which replicas are in sync (the ISR)",
        why="the leader takes every write and the followers copy it; a write with acks=all is "
            "acknowledged once every in-sync replica has it, and refused while fewer than "
            "min.insync.replicas are in sync",
        production=f"the rule for not losing acknowledged data: {RULE}, with replication "
                   f"factor 3, so one broker can die with nothing lost and nothing refused"))
    stage.kafka.start(retention_sec=stage.timings.endless_retention_sec, brokers=3)
    replicas = stage.brokers.replicas()
    stage.fact("replicas", list(replicas.replicas))
    stage.say(f"partition 0: leader {replicas.leader}, replicas {list(replicas.replicas)}, "
              f"in sync {list(replicas.isr)}")
    stage.app.start()
    stage.output.wait_for_value(stage.timings.run_for_messages)


def _kill_the_leader(stage: Stage) -> None:
    stage.step(Step(
        "Part one: kill -9 the partition's leader mid-stream",
        happens="the leader's JVM dies without a controlled shutdown; after its session times "
                "out (9 s) the controller elects an in-sync follower; the producer's pending "
                "send and the Spark app's fetches fail over to the new leader",
        watch="the producer pauses, then goes on with the next offset; the app's batches go "
              "on without a restart",
        why="with acks=all every acknowledged message is on every in-sync replica, so the new "
            "leader has all of them: its log ends where the old one's acknowledged log ended",
        production="a broker dying is routine: clients retry (delivery.timeout.ms) and the "
                   "Spark connector's consumers re-fetch metadata; nothing to do by hand"))
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
    stage.expect(check("an in-sync follower took over", new_leader in before.isr,
                       f"one of {[n for n in before.isr if n != before.leader]}",
                       f"broker {new_leader}"), phase="acks=all")
    stage.output.wait_for_value(written + stage.timings.run_for_messages)
    running = stage.kafka.producer_running
    stage.expect(check("the producer rode it out", running, "the same producer, still sending",
                       "running" if running else "exited"), phase="acks=all")
    stage.expect(check("the app rode it out", stage.app.running,
                       "the same Spark app, no restart", "running" if stage.app.running else "exited"),
                 phase="acks=all")
    stage.brokers.start([before.leader])
    stage.brokers.wait_for_isr(3)
    stage.say(f"broker {before.leader} is back as a follower and in sync again")


def _rule_kept(stage: Stage) -> None:
    stage.step(Step(
        "Every message so far counted exactly once",
        happens="the producer stops; the app drains the topic and keeps running",
        watch="values 1..N once each, Count = n paired with the n-th message",
        why="the failover lost nothing and repeated nothing: no acknowledged offset changed, "
            "so Spark's checkpointed offsets still point at the same messages"))
    total = stage.stop_producer_and_drain()
    stage.expect(exactly_once(stage.output.verify_sent(), total), phase="acks=all")


# -- part two: the rule broken ---------------------------------------------------------------------
def _relax_the_rule(stage: Stage) -> None:
    stage.step(Step(
        "Part two: break all three guards",
        happens="the topic takes min.insync.replicas=1 and unclean.leader.election.enable=true; "
                "the producer starts again with acks=1",
        watch="nothing changes yet: with three healthy brokers the settings make no difference",
        why="each guard covers a different hole: acks=1 is acknowledged by the leader alone; "
            "min ISR 1 lets the leader go on alone (and lets consumers read what only it has); "
            "unclean election lets a replica that is behind become leader",
        production="unclean election is off by default and should stay off for data you cannot "
                   "lose; some teams turn it on to get a partition back after losing every "
                   "in-sync replica, trading data for availability"))
    stage.kafka.set_topic_configs({"min.insync.replicas": "1",
                                   "unclean.leader.election.enable": "true"})
    stage.kafka.restart_producer(acks="1")
    stage.output.wait_for_more(stage.timings.run_for_messages)


@dataclass(frozen=True)
class Alone:
    """The leader left alone in sync, and how far the app read from it."""

    leader: int
    followers: tuple[int, ...]
    acknowledged: int  # the partition's end offset on the leader when it was killed
    checkpoint: int  # the offset the app's checkpoint resumes from


def _leave_the_leader_alone(stage: Stage) -> Alone:
    stage.step(Step(
        "Both followers stop, one after the other; the leader goes on alone",
        happens="each follower shuts down cleanly and the controller takes it out of the ISR; "
                "with both gone the KRaft quorum has lost its majority, but the leader keeps "
                "serving: acks=1 sends are acknowledged, and with the ISR down to the leader "
                "its high watermark moves, so Spark reads them",
        watch="the ISR shrinks to the leader alone; the producer and the app go on",
        why="the followers' logs end where each stopped: every message after that is on one "
            "disk only, though the producer was told it is stored",
        production="alert on UnderReplicatedPartitions and UnderMinIsrPartitionCount: with "
                   "min.insync.replicas=2 these sends would have been refused instead"))
    replicas = stage.brokers.replicas()
    leader = replicas.leader
    assert leader is not None
    # In the order of the replica list: the controller's unclean election takes the first
    # live replica in that order, so the first one stopped (the most behind) is the one chosen.
    followers = tuple(n for n in replicas.replicas if n != leader)
    for follower in followers:
        stage.brokers.stop(follower)
        stage.say(f"broker {follower}'s log ends at offset {stage.kafka.window().latest}")
        stage.output.wait_for_more(stage.timings.run_for_messages)
    alone = stage.brokers.replicas()
    stage.say(f"partition 0: leader {alone.leader}, in sync {list(alone.isr)}")
    stage.expect(check("the leader is alone in sync", alone.isr == (leader,),
                       f"ISR [{leader}]", f"ISR {list(alone.isr)}"), phase="acks=1")
    stage.output.wait_for_more(2 * stage.timings.run_for_messages)
    checkpoint = stage.app.wait_while_up(
        lambda: _committed_past(stage, stage.output.verify().highest or 0),
        "the checkpoint to commit what the app wrote")
    acknowledged = stage.kafka.window().latest
    stage.fact("part2_leader", leader)
    stage.fact("part2_checkpoint_offset", checkpoint)
    stage.fact("part2_acknowledged_end", acknowledged)
    stage.say(f"the leader has acknowledged offsets up to {acknowledged}; the checkpoint "
              f"resumes at {checkpoint}")
    return Alone(leader, followers, acknowledged, checkpoint)


def _committed_past(stage: Stage, offset: int) -> int | None:
    committed = stage.app.committed_offset()
    return committed if committed is not None and committed >= offset else None


def _unclean_election(stage: Stage, alone: Alone) -> Rewind:
    stage.step(Step(
        "kill -9 the leader; the two stale followers come back; Kafka elects one of them",
        happens="the last in-sync replica dies; the followers start again, elect a controller, "
                "and it finds no in-sync replica alive: unclean election is allowed, so it makes "
                "the first live replica leader, with the log it has",
        watch="kafka-server-<id>.log of the controller: `UNCLEAN partition change`; the "
              "producer's offsets fall back to the new leader's log end",
        why="the new leader never got the messages only the old one had: Kafka drops them, "
            "and the next messages take the same offsets again",
        production="with unclean election off the partition would stay offline until the old "
                   "leader came back with its data: unavailable, not lost. Choose per topic"))
    stage.brokers.kill(alone.leader)
    started = time.monotonic()
    stage.brokers.start(alone.followers)
    new_leader = stage.brokers.wait_for_leader(other_than=alone.leader)
    stage.fact("part2_election_sec", round(time.monotonic() - started, 1))
    stage.fact("part2_new_leader", new_leader)
    stage.expect(check("a replica that was not in sync became leader", new_leader in alone.followers,
                       f"one of the stale followers {list(alone.followers)}", f"broker {new_leader}"),
                 phase="unclean election")
    # Not while the app is up: it may already have stopped on the rewind, which is the next step.
    rewind = wait_until(lambda: _rewind(stage), timeout=_REWIND_TIMEOUT_SEC,
                        what="the producer's offsets to go back", progress=stage.narrator.waiting)
    stage.fact("part2_new_leader_log_end", rewind.offset_after)
    stage.fact("part2_lost_values", rewind.lost)
    stage.say(f"broker {new_leader}'s log ended at offset {rewind.offset_after}; value "
              f"{rewind.first_value_after} went there. Values {rewind.lost} were acknowledged "
              f"by broker {alone.leader} and are gone ({len(rewind.lost)} messages)")
    stage.expect(check("acknowledged messages are lost", len(rewind.lost) > 0,
                       f"the new leader's log ends below {alone.acknowledged}",
                       f"it ends at {rewind.offset_after}"), phase="unclean election")
    stage.expect(check("offsets went back below the checkpoint", rewind.offset_after < alone.checkpoint,
                       f"below {alone.checkpoint}, where the checkpoint resumes",
                       rewind.offset_after), phase="unclean election")
    return rewind


def _rewind(stage: Stage) -> Rewind | None:
    lines = (parse_message(line) for line in stage.kafka.producer_output().splitlines())
    return rewind_in(line for line in lines if line is not None)


def _spark_refuses(stage: Stage, rewind: Rewind) -> None:
    stage.step(Step(
        "The Spark app meets offsets that went back",
        happens="planning the next batch, Spark asks for the latest offset, finds it below the "
                "end of the last batch (it retries: `Found incorrect offsets`), and with "
                f"failOnDataLoss=true stops the query with {CONDITION}",
        watch="the app's last line: `Partition …'s offset was changed from X to Y, some data "
              "may have been missed`; X is where the checkpoint is, Y the new latest offset",
        why="the connector cannot tell an unclean election from a deleted and recreated topic: "
            "either way the offsets it has read no longer mean the messages it read",
        production="this stop is what you want: the checkpoint's offsets and Kafka disagree, "
                   "and a human must decide what to reprocess"))
    code = stage.app.wait_exit(timeout=_REFUSAL_TIMEOUT_SEC, kind="crash")
    output = stage.app.output()
    named = error_in_text(output)
    stage.expect(check("the app stops", code not in (0, None), "a non-zero exit code",
                       f"exit code {code}"), phase="failOnDataLoss=true")
    stage.expect(check("the error is Spark's data-loss condition for a changed offset",
                       isinstance(named, PartitionOffsetChangedError), CONDITION,
                       named.token if named else "no error line"), phase="failOnDataLoss=true")
    changes = offset_changes_in(output)
    stage.fact("error_offset_change", changes[-1] if changes else None)
    checkpoint = stage.facts["part2_checkpoint_offset"]
    held = bool(changes) and changes[-1][0] >= checkpoint and changes[-1][1] < changes[-1][0]
    stage.expect(check("the error goes from the app's offset back to Kafka's latest", held,
                       f"from {checkpoint} or later back to an offset at or above {rewind.offset_after}",
                       f"from {changes[-1][0]} to {changes[-1][1]}" if changes else "no such words"),
                 phase="failOnDataLoss=true")


def _spark_skips(stage: Stage, rewind: Rewind) -> None:
    stage.step(Step(
        "Restart the app with failOnDataLoss=false",
        happens="Spark logs the same words as a warning, drops the batch's backwards range and "
                "goes on from the latest offset it found; the count goes on from the state",
        watch="the first value the restarted app writes: every value the producer sent since "
              "the election and before that is missing from the output",
        why="the new messages took offsets the checkpoint had already passed, so Spark treats "
            "them as read; what the old leader alone had was counted, and Kafka has it no more",
        production="failOnDataLoss=false turns a loud stop into a silent gap. After an unclean "
                   "election, reprocess from a source of truth, or reset the query to chosen "
                   "offsets (a new checkpoint with startingOffsets) and accept the count's reset"))
    first, _, _ = stage.start_app_and_see_first_value(fail_on_data_loss=False)
    stage.fact("part2_resumed_at_value", first)
    stage.stop_producer_and_drain()
    stage.app.stop()
    report = stage.output.verify_sent()
    skipped = ValueRange(rewind.first_value_after, first - 1)
    skipped_ranges = [skipped] if len(skipped) > 0 else []
    stage.fact("part2_skipped_values", skipped if skipped_ranges else None)
    resumed_offset = rewind.offset_after + (first - rewind.first_value_after)
    stage.fact("part2_resumed_at_offset", resumed_offset)
    reread = (resumed_offset, stage.facts["part2_checkpoint_offset"])
    stage.fact("part2_offsets_read_twice", list(reread) if reread[0] < reread[1] else None)
    stage.say(f"the restarted app went on at value {first} (offset {resumed_offset}); skipped: "
              f"{skipped if skipped_ranges else 'nothing'}"
              + (f"; offsets [{reread[0]}, {reread[1]}) were read twice, holding other messages "
                 f"the second time" if reread[0] < reread[1] else ""))
    stage.expect(missing_exactly(report, skipped_ranges), phase="failOnDataLoss=false")
    stage.expect(duplicated_exactly(report, {}), phase="failOnDataLoss=false")
    counted = set(range(rewind.lost.first, rewind.lost.last + 1)) <= set(report.values)
    stage.expect(check("the messages Kafka lost were counted once", counted,
                       f"values {rewind.lost} in the output", "present" if counted else "absent"),
                 phase="failOnDataLoss=false")
    warned = offset_changes_in(_spark_log(stage))
    stage.fact("spark_log_offset_changes", warned)
    stage.expect(check("spark.log warns that the offset went back", bool(warned),
                       "`offset was changed from X to Y` in spark.log", warned or "no such warning"),
                 phase="failOnDataLoss=false")


def _spark_log(stage: Stage) -> str:
    path = stage.folders.log / SPARK_LOG_FILE_NAME
    return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""


def _old_leader_returns(stage: Stage, alone: Alone) -> None:
    stage.step(Step(
        "The old leader comes back and throws away what only it had",
        happens=f"broker {alone.leader} starts, learns the new leader's epoch, truncates its "
                "log to where the new leader's diverged, and copies the new messages",
        watch=f"kafka-server-{alone.leader}.log: `Truncating` the partition to the new leader's "
              "offset; the ISR is three again",
        why="Kafka keeps one history per partition, the leader's: the acknowledged messages "
            "are now gone from every broker",
        production="after an unclean election the lost messages can only come from the "
                   "producers' side (their logs, an outbox table): plan for it or keep the rule"))
    stage.brokers.start([alone.leader])
    replicas = stage.brokers.wait_for_isr(3)
    stage.expect(check("all three replicas in sync again", len(replicas.isr) == 3,
                       "ISR of three", f"ISR {list(replicas.isr)}"), phase="aftermath")


SCENARIO = Scenario(
    name="broker-failover",
    title="a Kafka leader dies: acks=all rides it out; an unclean election loses acknowledged data",
    summary="Three Kafka brokers, replication factor 3. Killing the leader with acks=all and "
            "min.insync.replicas=2 loses nothing. With acks=1, min ISR 1 and unclean election "
            "on, a stale replica becomes leader: acknowledged messages vanish, offsets go back, "
            "Spark stops with KAFKA_DATA_LOSS.PARTITION_OFFSET_CHANGED, and with "
            "failOnDataLoss=false skips the messages that reused old offsets.",
    origin="seed 002, known data-loss cases",
    run=run,
    kafka_brokers=3,
)
