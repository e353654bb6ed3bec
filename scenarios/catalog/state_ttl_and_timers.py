"""transformWithState's time: state that expires, a timer that outlives a kill -9, and a state
schema that may grow but not be renamed or narrowed.

The count runs on transformWithState (RocksDB, changelog checkpointing, Avro-encoded state)
with `--state-ttl-sec` (a second value state, `last_seen`, that expires after the TTL; the
count has none) and `--idle-timer-sec` (a processing-time timer per key, re-armed by every
batch with messages). Both put the operator in ProcessingTime mode, where Spark runs a batch
every trigger even when Kafka is quiet.

1. The producer pauses: the timer fires (an `Event idle-timer` line in the output log) and,
   once the TTL has passed, Spark evicts `last_seen`; the next message finds it gone (an
   `Event ttl-expired` line before it). The count goes on: it has no TTL.
2. The producer pauses again and the app is killed with kill -9 before the timer is due. The
   State Data Source (`inspect --state-source`) reads the checkpoint while the app is down:
   the timer is in it, and the change feed of `last_seen` shows when Spark evicted it.
3. The app restarts with `--state-schema v2` (a field added to the count's value state): Avro
   accepts it. Spark runs no batch after a restart until new messages come; in the first
   one, after its messages, the timer registered before the kill fires.
4. A field renamed (`v2-renamed`): accepted by Spark 4.2.0 (Avro sees a field removed and one
   added; the old value is lost). Every message is counted exactly once. Then a field
   narrowed (`v2-narrowed`): refused with STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION.

Usage: `python -m scenarios run state-ttl-and-timers --fast`
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from scenarios.catalog import steps
from scenarios.checker.expectations import check, exactly_once
from scenarios.checker.state_events import (
    batch_reaching,
    event_precedes,
    events_at,
    first_batch_at_or_after,
    timers_due,
)
from scenarios.engine.scenario import Scenario
from scenarios.engine.stage import Stage
from scenarios.engine.step import Step
from spark_app.checkpoint.inspect import report_in_output
from spark_app.checkpoint.reader import BatchOffsets, committed_batches, read_checkpoint
from spark_app.errors import StateSchemaChangedError, error_in_text
from spark_app.lines.output_line import EventLine
from spark_app.lines.state_events import TTL_EXPIRED, details_in
from spark_app.runtime.state_store import ENCODING_CONF

__all__ = ["SCENARIO", "run", "Times", "times_for", "TWS_TTL", "refused_class"]

# transformWithState with what TTL, timers and schema evolution need: RocksDB (TWS refuses
# HDFS), changelogs (the State Data Source's change feed reads them) and Avro encoding.
TWS_TTL = {
    "counter": "transform-with-state",
    "state_store": "rocksdb",
    "changelog_checkpointing": True,
    "state_encoding": "avro",
}
EVOLUTION_REFUSAL = "STATE_STORE_INVALID_VALUE_SCHEMA_EVOLUTION"


@dataclass(frozen=True)
class Times:
    """The idle timer and the TTL, in seconds: the TTL well above the timer, so a pause shows
    the timer first and the eviction later."""

    idle_timer_sec: float
    ttl_sec: float

    def options(self) -> dict[str, Any]:
        return {**TWS_TTL, "idle_timer_sec": self.idle_timer_sec, "state_ttl_sec": self.ttl_sec}


def times_for(fast: bool) -> Times:
    # The timer leaves time to kill the app after the batch's commit; the TTL, time to see the
    # timer fire first. A busy machine's batches take seconds.
    return Times(8.0, 16.0) if fast else Times(10.0, 20.0)


def run(stage: Stage) -> None:
    times = times_for(stage.settings.fast)
    stage.fact("idle_timer_sec", times.idle_timer_sec)
    stage.fact("state_ttl_sec", times.ttl_sec)
    with stage.step(
        steps.start_kafka(
            happens="a broker and the producer; the topic keeps everything",
            why="a consumer that is down or slow does not keep the messages: the topic does, for "
            "as long as its retention says",
            question="The scenario will pause the producer twice and kill the app once: what "
            "keeps the messages the app has not read yet?",
            answer="Kafka's retention, not the consumer: the app reads what it has not read when "
            "it comes back, as long as the topic still holds it (here it keeps everything).",
            production="a source that may go quiet is normal; retention is what keeps unread "
            "messages, not the consumer",
            giveaway=("retention, not the consumer",),
            checks=(),
        )
    ):
        stage.kafka.start()
    with stage.step(
        Step(
            "Start the count on transformWithState with a TTL and an idle timer",
            happens=f"--counter transform-with-state --state-store rocksdb "
            f"--changelog-checkpointing --state-encoding avro --state-ttl-sec "
            f"{times.ttl_sec:g} --idle-timer-sec {times.idle_timer_sec:g}",
            watch="the app's batch lines, the count catching up with the producer",
            why="the state's encoding is fixed when the checkpoint is created: every restart "
            "reads the state with the encoding its first start chose",
            production="choose the state encoding before the first start: Avro is the one whose "
            "value schema can evolve",
            question="Asked for --state-encoding avro, where will the query keep that choice?",
            answer="In the offset log: offsets/N pins "
            "spark.sql.streaming.stateStore.encodingFormat=avro (checked).",
            giveaway=("offset log", "offsets/n pins"),
            checks=("Avro encoding is pinned in the offset log",),
        )
    ):
        stage.app.start(**times.options())
        # Caught up with the producer: batch 0 reads the backlog, the pauses need live batches.
        stage.output.wait_for_value(stage.kafka.window().latest + 2)
        _pinned_avro(stage)
    paused = _pause_live(stage, times)
    pending = _kill_with_timer_pending(stage, times)
    with stage.step(
        Step(
            "Read the stopped checkpoint with the State Data Source",
            happens="python -m spark_app inspect --state-batch <the first pause's last batch> "
            "--json: `state-metadata`'s operatorProperties, `statestore` with "
            "stateVarName=last_seen and its change feed, and readRegisteredTimers",
            watch="the inspect app's lines while Spark reads; then the narration's lines from "
            "its report: last_seen, its change feed, the registered timers",
            why="TTL and timers are kept as state: a TTL'd value is stored with its expiry and a "
            "secondary index Spark scans each batch; timers in two column families, by key "
            "and by time",
            production="this read works on a stopped query or a copy of its folder: check what "
            "will expire, and what will fire, before a restart",
            question="What will the stopped checkpoint show: when last_seen expires, in which "
            "batch Spark deleted it, and when the pending timer is due?",
            answer="last_seen expires the TTL after the batch that last wrote it; Spark deleted "
            "it in the first batch past its expiry; the pending timer is due the last batch's "
            "time + the idle time (all checked).",
            giveaway=("the ttl after the batch", "first batch past its expiry", "+ the idle time"),
            checks=(
                "last_seen expires the TTL after its batch",
                "Spark evicted last_seen in the first batch past its expiry",
                "the pending timer is in the checkpoint",
            ),
        )
    ):
        due = _read_state(stage, times, paused, pending)
    _restart_evolved(stage, times, pending, due)
    _renamed(stage, times)
    total = _finish(stage)
    _narrowed(stage, times, total)


@dataclass(frozen=True)
class Pause:
    """What a pause of the producer left for the next phases: its last value, and when the batch
    that counted it ran (None where no phase needs it)."""

    last_value: int
    last_ms: int | None = None


def _pinned_avro(stage: Stage) -> None:
    pinned = read_checkpoint(stage.folders.checkpoints).conf.get(ENCODING_CONF)
    stage.expect(
        check(
            "Avro encoding is pinned in the offset log",
            pinned == "avro",
            f"offsets/N: {ENCODING_CONF}=avro",
            pinned,
        ),
    )


def _committed_batch(stage: Stage, value: int) -> BatchOffsets:
    """Wait until the batch that counted `value` has committed; its offsets."""
    return stage.app.wait_while_up(
        lambda: batch_reaching(committed_batches(stage.folders.checkpoints), value),
        f"the batch that counted {value} to commit",
    )


def _wait_for_timer(stage: Stage, due_ms: int, timeout: float = 180.0) -> EventLine:
    """The idle-timer event of the timer due at `due_ms` (its batch's time + the idle time)."""

    def fired() -> EventLine | None:
        found = timers_due(stage.output.verify().events, due_ms)
        return found[0] if found else None

    return stage.app.wait_while_up(fired, f"the idle timer due at {due_ms}", timeout=timeout)


def _pause_live(stage: Stage, times: Times) -> Pause:
    with stage.step(
        Step(
            "Pause the producer",
            happens=f"the producer stops; the app keeps running; after {times.ttl_sec:g} s the "
            "producer starts again",
            watch="the app's batch lines while no message comes; the narration's line if a "
            "timer fires; then, once the producer sends again, the narration's line on what "
            "the next message found",
            why="TTL and processing-time timers need timeMode ProcessingTime, where Spark runs a "
            "batch every trigger so that timers fire and expired state is evicted while the "
            "source is quiet. Every batch with messages updates last_seen (its TTL starts "
            "again) and re-arms the timer; in the idle batches Spark fires the timer once it "
            "is due, and evicts last_seen once its TTL has passed, so handleInputRows finds "
            "no value",
            production="a ProcessingTime operator costs a (small) batch per trigger even when "
            "idle. TTL is how per-key state stops growing forever (users, sessions, devices "
            "that went away); give a TTL to what may be forgotten, never to what must be exact",
            question="With no messages, will Spark still run batches, and which shows first: "
            "the idle timer, or last_seen's expiry?",
            answer="Spark runs batches without messages (checked); in them the idle timer fires "
            "once, when due, after count N; the expiry shows only when messages come back: "
            "`Event ttl-expired after count N` right before Count = N + 1 (all checked).",
            giveaway=(
                "batches without messages",
                "fires once",
                "ttl-expired after",
                "right before",
            ),
            checks=(
                "batches ran while the producer was paused",
                "the idle timer fired once, when due",
                "the next message found last_seen expired, the count went on",
            ),
        )
    ):
        total = stage.fact("pause_1_last_value", stage.kafka.stop_producer().latest)
        stage.output.wait_for_value(total)
        last = _committed_batch(stage, total)
        last_ms = last.batch_timestamp_ms or 0
        due = last_ms + int(times.idle_timer_sec * 1000)
        timer = _wait_for_timer(stage, due)
        details = details_in(timer.text)
        stage.fact("pause_1_timer", details)
        stage.say(f"timer fired after count {total}: {timer.text}")
        idle = [
            b
            for b in committed_batches(stage.folders.checkpoints)
            if b.batch_id > last.batch_id and b.end_total == last.end_total
        ]
        stage.expect(
            check(
                "batches ran while the producer was paused",
                bool(idle),
                f"committed batches after batch {last.batch_id} that read no new offset",
                f"{len(idle)} such batch(es)",
            )
        )
        # Past the TTL of batch {last}'s update of last_seen, plus a batch.
        expiry = last_ms + int(times.ttl_sec * 1000) + 2000
        stage.app.wait_while_up(
            lambda: True if time.time() * 1000 >= expiry else None,
            "last_seen's TTL to pass",
            timeout=times.ttl_sec + 60,
        )
        stage.kafka.restart_producer(acks="all")

        def expired() -> EventLine | None:
            found = events_at(stage.output.verify().events, TTL_EXPIRED, total)
            return found[0] if found else None

        seen = stage.app.wait_while_up(
            expired, f"last_seen found expired after {total}", timeout=120
        )
        stage.output.wait_for_value(total + 2)
        stage.say(f"after the pause: {seen.text}")
        lines = _log_lines(stage)
        stage.expect(
            check(
                "the idle timer fired once, when due",
                len(timers_due(stage.output.verify().events, due)) == 1
                and timer.count == total
                and details.get("batch_ms", 0) >= due,
                f"one `Event idle-timer after count {total}` due {due} (offsets/"
                f"{last.batch_id}'s batchTimestampMs + the idle time), fired at or after "
                "it",
                timer.text,
            )
        )
        stage.expect(
            check(
                "the next message found last_seen expired, the count went on",
                event_precedes(lines, TTL_EXPIRED, total, total + 1),
                f"`Event ttl-expired after count {total}` right before `Count = {total + 1}`",
                seen.text,
            )
        )
        return Pause(total, last_ms)


def _kill_with_timer_pending(stage: Stage, times: Times) -> Pause:
    with stage.step(
        Step(
            "Pause again and kill -9 the app before its timer is due",
            happens=f"the producer stops; as soon as the app has written the last message, kill "
            f"-9 (the timer is due {times.idle_timer_sec:g} s after that batch)",
            watch="the app's batch lines stop at the kill; the narration's line says how far "
            "from the timer's due time it came",
            why="the timer was registered in the batch that counted the last message, and that "
            "batch committed: it is in the checkpoint's state, in its own column family",
            production="timers are state: they survive crashes, restarts and redeploys with the "
            "checkpoint, and are lost with it",
            question="Killed before its timer is due, will the timer be lost?",
            answer="It had not fired before the kill (checked), and it is not lost: it was "
            "registered in a batch that committed, so it is in the checkpoint's state; the next "
            "two steps read it there and see it fire.",
            giveaway=("not lost", "in the checkpoint's state"),
            checks=("the timer had not fired before the kill",),
        )
    ):
        total = stage.fact("pause_2_last_value", stage.kafka.stop_producer().latest)
        stage.output.wait_for_value(total)
        last = _committed_batch(stage, total)
        stage.app.kill()
        due = (last.batch_timestamp_ms or 0) + int(times.idle_timer_sec * 1000)
        stage.say(f"killed {time.time() * 1000 - due:+.0f} ms from the timer's due time {due}")
        early = timers_due(stage.output.verify().events, due)
        stage.expect(
            check(
                "the timer had not fired before the kill",
                not early,
                f"no `Event idle-timer` due {due}",
                f"{len(early)} such line(s)",
            )
        )
        return Pause(total)


def _read_state(stage: Stage, times: Times, paused: Pause, pending: Pause) -> int | None:
    """Read the stopped checkpoint's state; the pending timer's due time (None when the pauses'
    batches are no longer in the checkpoint)."""
    checkpoints = stage.folders.checkpoints
    batches = committed_batches(checkpoints)
    first = batch_reaching(batches, paused.last_value)
    last = batch_reaching(batches, pending.last_value)
    if first is None or last is None:
        stage.expect(
            check(
                "the batches of both pauses are still in the checkpoint",
                False,
                f"batches ending at {paused.last_value} and {pending.last_value}",
                f"{len(batches)} committed batches",
            ),
        )
        return None
    code, output = stage.app.inspect(
        "--checkpoint-dir",
        str(checkpoints),
        "--log-dir",
        str(stage.folders.root / "inspect-log"),
        "--state-batch",
        str(first.batch_id),
        "--json",
        name="inspect-ttl",
    )
    report = report_in_output(output) or {}
    state = report.get("state_source") or {}
    stage.fact("state_report", state)
    for line in report.get("state_source_lines", []):
        if "last_seen" in line or "timers" in line or "time mode" in line:
            stage.say(line)
    stage.expect(
        check(
            "inspect read the state",
            code == 0 and bool(state),
            "exit 0 and a JSON report",
            f"exit {code}: {output[-300:]!r}",
        )
    )
    ttl_ms, idle_ms = int(times.ttl_sec * 1000), int(times.idle_timer_sec * 1000)
    value = (state.get("ttl_values") or {}).get("last_seen") or {}
    expires = (first.batch_timestamp_ms or 0) + ttl_ms
    stage.expect(
        check(
            "last_seen expires the TTL after its batch",
            value.get("expires_ms") == expires,
            f"ttlExpirationMs = offsets/{first.batch_id}'s batchTimestampMs + {ttl_ms}",
            value or "no value",
        )
    )
    deletes = [
        c["batch_id"] for c in state.get("ttl_changes") or [] if c["change_type"] == "delete"
    ]
    evicted = first_batch_at_or_after(batches, expires)
    stage.fact("last_seen_deleted_in", deletes)
    stage.expect(
        check(
            "Spark evicted last_seen in the first batch past its expiry",
            evicted is not None and evicted.batch_id in deletes,
            f"a delete in batch {evicted.batch_id if evicted else '?'}",
            f"deletes in batches {deletes}",
        )
    )
    timers = state.get("timers")
    due = (last.batch_timestamp_ms or 0) + idle_ms
    stage.fact("pending_timer_ms", due)
    stage.expect(
        check(
            "the pending timer is in the checkpoint",
            timers == [due],
            f"[{due}] (offsets/{last.batch_id}'s batchTimestampMs + {idle_ms})",
            timers,
        )
    )
    return due


def _restart_evolved(stage: Stage, times: Times, pending: Pause, due: int | None) -> None:
    with stage.step(
        Step(
            "Restart with a field added to the count's state (--state-schema v2), then messages",
            happens="the app starts on the same checkpoint with `count bigint, last_update_ms "
            "bigint` instead of `count bigint`; the producer starts again",
            watch="the app's first lines after its start; then, once the producer sends again, "
            "its batch lines and the narration's line when the timer fires",
            why="with Avro-encoded state Spark checks that the new schema can read the old rows "
            "(an added field reads as null) and keeps both schemas, each in a schema file of "
            "its own. A restarted query runs no idle batch (it has no last execution to ask "
            "whether one is needed), so the timer due while the app was down waits for the "
            "next batch with data, where Spark handles the rows first and the expired timers "
            "after them",
            production="evolve transformWithState's value schema by adding (or removing) fields, "
            "on a checkpoint created with encodingFormat=avro (pinned: it cannot be switched "
            "on later). After a restart, an idle key's overdue timers fire only when some "
            "data arrives: do not rely on them to fire on a quiet source",
            question="With a field added to the state, will the restart be refused, and when "
            "will the overdue timer fire?",
            answer="Not refused: the field is accepted with a new schema file; the timer fires "
            "once, only in the first batch with new messages, since no idle batch runs after a "
            "restart (all checked).",
            giveaway=("not refused", "first batch with new messages", "no idle batch"),
            checks=(
                "the timer registered before the kill fired after the restart",
                "no idle batch ran after the restart before new messages",
                "the added field was accepted",
            ),
        )
    ):
        schemas = _schema_files(stage)
        total = pending.last_value
        # A batch planned before the kill and not committed is replayed as it was planned (same
        # offsets, same time, before the timer's due time): the new decisions come after it.
        info = read_checkpoint(stage.folders.checkpoints)
        before = max(i for i in (info.last_committed_id, info.pending_id, 0) if i is not None)
        stage.app.start(**times.options(), state_schema="v2")
        stage.kafka.restart_producer(acks="all")

        timer = _wait_for_timer(stage, due or 0)
        details = details_in(timer.text)
        stage.fact("pause_2_timer", details)
        stage.say(f"after the restart: {timer.text}")
        stage.output.wait_for_value(total + 3)
        _committed_batch(stage, total + 1)
        same = timers_due(stage.output.verify().events, due or 0)
        stage.expect(
            check(
                "the timer registered before the kill fired after the restart",
                len(same) == 1 and timer.count > total and details.get("batch_ms", 0) >= (due or 1),
                f"one `Event idle-timer` due {due}, after the first new messages (count > {total})",
                f"{len(same)}: {timer.count}: {timer.text}",
            )
        )
        after = [b for b in committed_batches(stage.folders.checkpoints) if b.batch_id > before]
        first_end = after[0].end_total if after else None
        stage.fact(
            "first_batch_after_restart",
            {
                "batch": after[0].batch_id if after else None,
                "end": first_end,
                "replayed": info.pending_id,
            },
        )
        stage.expect(
            check(
                "no idle batch ran after the restart before new messages",
                first_end is not None and first_end > total,
                f"the first batch planned after the restart (after batch {before}) reads "
                f"past offset {total}",
                f"its end {first_end}",
            )
        )
        added = _schema_files(stage)
        stage.fact("state_schema_files", added)
        stage.expect(
            check(
                "the added field was accepted",
                len(added) > len(schemas),
                "the app counts on, a new schema file under state/0/_stateSchema/",
                f"schema files {schemas} -> {added}",
            )
        )


def _finish(stage: Stage) -> int:
    with stage.step(
        steps.finish(
            happens="the producer stops, the app drains the topic and stops; the output log is "
            "held against what the producer sent",
            why="timers and TTL add output, never change the count: the count has no TTL",
            question="The timer and TTL wrote event lines into the output log: do they change "
            "the count?",
            answer="No: every message once, Count = n on the n-th (checked); the event lines "
            "stand between batches and take no part in the count.",
            production="keep what must be exact (a count, a balance) out of TTL'd state",
            giveaway=("take no part", "stand between batches", "every message once"),
        )
    ):
        total = stage.stop_producer_and_drain()
        stage.app.stop()
        report = stage.output.verify_sent()
        stage.fact("events", [f"{e.kind}@{e.count}" for e in report.events])
        stage.expect(exactly_once(report, total))
        return total


def _renamed(stage: Stage, times: Times) -> None:
    with stage.step(
        Step(
            "Restart with a field renamed (--state-schema v2-renamed: last_update_ms -> "
            "updated_ms)",
            happens="the app is stopped and started on the checkpoint with `count bigint, "
            "updated_ms bigint`; the producer keeps sending",
            watch="the app's first lines after its start, then its batch lines",
            why="Avro resolves fields by name: to Spark a renamed field is a field removed plus "
            "a field added, and both are allowed evolutions, so old rows read updated_ms as "
            "null; the value of last_update_ms is dropped without an error (Spark 4.2.0)",
            production="a rename is silent data loss for that field: add the new field, copy "
            "the value over in handleInputRows, and remove the old one in a later release",
            question="Will Spark refuse a renamed field, or accept it, and what happens to the "
            "old field's values?",
            answer="It accepts it, as a new field (checked: the count goes on, and the newest "
            "schema file names updated_ms); the old values of last_update_ms are dropped "
            "without an error.",
            giveaway=("accepts it", "as a new field", "dropped without an error"),
            checks=("the rename is accepted, as a new field",),
        )
    ):
        stage.app.stop()
        schemas = _schema_files(stage)
        highest = stage.output.verify().highest or 0
        stage.app.start(**times.options(), state_schema="v2-renamed")

        def new_schema() -> list[str] | None:
            now = _schema_files(stage)
            return now if len(now) > len(schemas) else None

        stage.output.wait_for_value(highest + 3)
        after = stage.app.wait_while_up(new_schema, "a new state schema file")
        named = '"updated_ms"' in _schema_text(stage, after[-1])
        stage.fact("v2-renamed_schema_file", after[-1])
        stage.expect(
            check(
                "the rename is accepted, as a new field",
                named,
                "the count goes on; the newest schema file names updated_ms",
                f"schema files {schemas} -> {after}; updated_ms "
                + ("named" if named else "not named"),
            )
        )


def _narrowed(stage: Stage, times: Times, total: int) -> None:
    schema = "v2-narrowed"
    with stage.step(
        Step(
            "Restart with a field narrowed (--state-schema v2-narrowed: count bigint -> int)",
            happens=f"the producer sends again and the app starts on the checkpoint with "
            f"--state-schema {schema}",
            watch="the app's lines after its start; the producer's lines, sending again",
            why="Avro can widen an int to a long when reading, never narrow a long to an int: "
            "the old rows could not be read",
            production="to narrow a field, add a new one and move the values over in code; or "
            "move to a new checkpoint, seeded from this one (State Data Source + initialState)",
            question="Will a narrowed field (bigint -> int) be accepted like the added and "
            "renamed ones?",
            answer=f"No: the app stops in one line, {StateSchemaChangedError.token} naming "
            f"{EVOLUTION_REFUSAL} and both schemas, and nothing is written (both checked).",
            giveaway=("stops in one line", "invalid_value_schema", "nothing is written"),
            checks=(f"{schema} is refused with Spark's error class", "nothing was written"),
        )
    ):
        before = stage.output.verify().messages
        # Spark checks the schema when it plans a batch, and a restarted query plans one only
        # when there is something new to read.
        stage.kafka.restart_producer(acks="all")
        stage.app.start(**times.options(), state_schema=schema)
        code = stage.app.wait_exit()
        output = stage.app.output()
        error = error_in_text(output)
        line = next((ln for ln in output.splitlines() if StateSchemaChangedError.token in ln), "")
        found = refused_class(line)
        stage.fact(f"{schema}_refusal", line)
        stage.expect(
            check(
                f"{schema} is refused with Spark's error class",
                code == StateSchemaChangedError.exit_code
                and isinstance(error, StateSchemaChangedError)
                and found == EVOLUTION_REFUSAL,
                f"exit 1, {StateSchemaChangedError.token} … {EVOLUTION_REFUSAL}",
                f"exit {code}: {line[:300] or output[-300:]!r}",
            ),
        )
        stage.kafka.stop_producer()
        after = stage.output.verify()
        stage.expect(
            check(
                "nothing was written",
                after.messages == before and after.ok and after.final_count == total,
                f"{before} messages, final count {total}",
                f"{after.messages} messages, final count {after.final_count}",
            ),
        )


# -- pure helpers (tests/scenarios/catalog/test_state_ttl_and_timers.py) -----------------------


def refused_class(line: str) -> str | None:
    """Spark's error class named in the app's refusal line."""
    for word in line.replace(",", " ").replace(";", " ").replace(":", " ").split():
        if word.startswith("STATE_STORE_"):
            return word.strip("[].")
    return None


def _log_lines(stage: Stage) -> list[str]:
    return stage.folders.output_log.read_text(encoding="utf-8").splitlines()


def _schema_text(stage: Stage, name: str) -> str:
    path = stage.folders.checkpoints / "state" / "0" / "_stateSchema" / "default" / name
    return path.read_bytes().decode("utf-8", errors="replace")


def _schema_files(stage: Stage) -> list[str]:
    folder = stage.folders.checkpoints / "state" / "0" / "_stateSchema" / "default"
    names = (
        [p.name for p in folder.iterdir() if not p.name.startswith(".")] if folder.is_dir() else []
    )
    # `<batch>_<uuid>`: in the order Spark wrote them.
    return sorted(names, key=lambda n: int(n.split("_")[0]) if n.split("_")[0].isdigit() else -1)


SCENARIO = Scenario(
    name="state-ttl-and-timers",
    title="transformWithState: state that expires, a timer that outlives kill -9, schema evolution",
    summary="The count on transformWithState with a TTL'd last_seen and an idle timer: a pause "
    "fires the timer and expires last_seen; a timer pending at kill -9 fires after the "
    "restart (read in the checkpoint meanwhile); Avro state accepts an added field, and "
    "a renamed one (silently losing it), and refuses a narrowed one; every message once.",
    origin="Spark 4's transformWithState",
    about="transformWithState's TTL and timers across pauses, a kill -9 and restarts, and how "
    "far its state's schema may change",
    run=run,
    takes="about 2 min: four Spark starts on transformWithState, and quiet stretches long enough "
    "for the state's TTL and the idle timer to pass",
)
