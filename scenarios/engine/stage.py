"""The world one scenario runs in: its folders, its processes, its narration, its checks.

A scenario module receives a `Stage` and tells the story with it: start Kafka and the Spark
app, kill, stop, crash and restart the app, wait for what the output log or Kafka shows, and
state expectations. Everything started is stopped when the stage closes, whatever happened.

Usage:
    with Stage("endless-retention", settings, narrator, root) as stage:
        stage.start_kafka(retention_sec=3600)
        stage.start_spark()
        stage.wait_for_value(10)
        stage.expect(exactly_once(stage.verify(), 10))
"""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any

from scenarios.engine.apps import Folders, KafkaSide, SparkLauncher, free_port
from scenarios.errors import ProcessError, StepFailed
from scenarios.checker.expectations import Check
from scenarios.engine.observers.kafka_probe import OffsetWindow
from scenarios.report.narration import Narrator, Step
from scenarios.engine.processes import ManagedProcess, ProcessGroup
from scenarios.engine.observers.sampler import OffsetSampler, committed_offset
from scenarios.checker.sent_record import read_producer_log, read_topic, union
from scenarios.engine.settings import PROJECT_ROOT, RunSettings
from scenarios.engine.faults.tcp_proxy import TcpProxy
from scenarios.report.timeline import Timeline
from scenarios.checker.verify import VerifyReport, verify, verify_file, verify_sent
from scenarios.engine.waiting import wait_until
from kafka_app.logs import LOG_FILE_NAME
from spark_app.errors import DataLossError, error_in_text
from spark_app.batch_line import durations_in_output, lag_in_output

__all__ = ["Stage"]


class Stage:
    """Folders, processes, narration and checks of one scenario run (a context manager)."""

    def __init__(self, name: str, settings: RunSettings, narrator: Narrator, root: Path) -> None:
        self.name = name
        self.settings = settings
        self.timings = settings.timings
        self.narrator = narrator
        self.folders = Folders(root)
        self.timeline = Timeline()
        self.checks: list[Check] = []
        self.facts: dict[str, Any] = {}
        self.group = ProcessGroup(self.folders.processes, cwd=root,
                                  env={"PYTHONPATH": str(PROJECT_ROOT)})
        self.kafka: KafkaSide | None = None
        self.spark: SparkLauncher | None = None
        self._sampler: OffsetSampler | None = None
        self.proxy: TcpProxy | None = None

    # -- life cycle -----------------------------------------------------------------------------
    def __enter__(self) -> Stage:
        if self.folders.root.exists():
            shutil.rmtree(self.folders.root)  # every run starts from nothing
        for folder in (self.folders.log, self.folders.processes):
            folder.mkdir(parents=True)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Stop every process, then the sampler (idempotent)."""
        try:
            self.group.stop()
        finally:
            if self._sampler is not None:
                self._sampler.stop()
            self.timeline.app_down()
            if self.kafka is not None:
                self.kafka.close()
            if self.proxy is not None:
                self.proxy.stop()

    # -- narration and checks -------------------------------------------------------------------
    def step(self, step: Step) -> None:
        self.narrator.step(step)

    def say(self, text: str) -> None:
        self.narrator.say(text)

    def expect(self, check: Check, phase: str = "") -> bool:
        """Record a check (its name prefixed with the phase) and narrate it."""
        named = replace(check, name=f"{phase}: {check.name}" if phase else check.name)
        self.checks.append(named)
        self.narrator.check(named.name, named.held, named.detail)
        return named.held

    def fact(self, key: str, value: Any) -> Any:
        """Remember a number the scenario predicted or observed (goes into the JSON report)."""
        self.facts[key] = value
        return value

    # -- the network between the Spark app and Kafka -------------------------------------------
    def _start_proxy(self) -> str:
        kafka = self._kafka()
        assert kafka.proxy_port is not None and kafka.second_port is not None
        self.proxy = TcpProxy(kafka.proxy_port, ("127.0.0.1", kafka.second_port)).start()
        self.say(f"the Spark app will reach Kafka through a proxy at 127.0.0.1:{kafka.proxy_port}")
        return f"127.0.0.1:{kafka.proxy_port}"

    def cut_network(self) -> None:
        if self.proxy is None:
            raise StepFailed("start Kafka with behind_proxy=True to cut the network")
        self.proxy.cut()
        self.timeline.event("network cut", "crash")
        self.say("the network between the Spark app and Kafka is cut")

    def restore_network(self) -> None:
        if self.proxy is None:
            raise StepFailed("start Kafka with behind_proxy=True to restore the network")
        self.proxy.restore()
        self.timeline.event("network back", "start")
        self.say("the network between the Spark app and Kafka is back")

    # -- Kafka ----------------------------------------------------------------------------------
    def start_kafka(self, retention_sec: float, partitions: int = 1,
                    behind_proxy: bool = False) -> KafkaSide:
        """Broker and producer; with `behind_proxy` the Spark app reaches Kafka only through a
        proxy the scenario can cut (`cut_network`), while the producer writes directly."""
        external = self.settings.bootstrap_servers
        if behind_proxy and external:
            raise StepFailed("this scenario puts a proxy of its own between the Spark app and an "
                             "embedded broker; run it without --bootstrap-servers")
        # A real Kafka is shared: each scenario run gets its own topic there.
        topic = f"Experience-{self.name}-{int(time.time())}" if external else "Experience"
        self.kafka = KafkaSide(self.group, self.folders, self.timings, topic=topic,
                               retention_sec=retention_sec, bootstrap_servers=external,
                               python=self.settings.python, progress=self.narrator.waiting,
                               partitions=partitions,
                               proxy_port=free_port() if behind_proxy else None)
        self.kafka.start_broker()
        app_bootstrap = self._start_proxy() if behind_proxy else self.kafka.bootstrap_servers
        self.timeline.event("Kafka up", "start")
        self.kafka.start_producer()
        self.say(f"Kafka at {self.kafka.bootstrap_servers}, topic {topic}"
                 + (f" with {partitions} partitions" if partitions != 1 else "")
                 + f", retention {retention_sec:g} s; the producer is sending")
        self.spark = SparkLauncher(self.group, self.folders, app_bootstrap, topic,
                                   self.timings, python=self.settings.spark_python,
                                   source=self.settings.source)
        self._sampler = OffsetSampler(self.timeline, self.kafka.bootstrap_servers, topic,
                                      lambda: self.folders.checkpoints).start()
        return self.kafka

    def window(self) -> OffsetWindow:
        return self._kafka().window()

    def send_negative_key(self) -> int:
        """Press Enter in the producer; returns the value of the message it sent with key -value."""
        kafka = self._kafka()
        assert kafka.producer is not None, "start the producer first"
        mark = kafka.producer.mark()
        kafka.send_negative_key()
        self.timeline.event("Enter: negative key", "note")
        match = kafka.producer.wait_for(r": -(\d+) -> (\d+)", since=mark, timeout=30,
                                        what="a message with a negative key")
        assert isinstance(match, re.Match)
        if match.group(1) != match.group(2):
            raise StepFailed(f"the producer sent key -{match.group(1)} with value "
                             f"{match.group(2)}; a negative key must be minus its value")
        return int(match.group(2))

    def negative_key_lines(self, value: int) -> int:
        """How many lines of the output log hold the message sent with key -value."""
        text = self.folders.output_log.read_text(encoding="utf-8")
        return len(re.findall(rf": -{value} -> {value}\s*$", text, flags=re.M))

    def stop_producer(self) -> OffsetWindow:
        """Stop the producer; returns the topic's final offsets."""
        self._kafka().stop_producer()
        self.timeline.event("producer stopped", "stop")
        return self.window()

    def stop_producer_and_drain(self) -> int:
        """Stop the producer and wait until the Spark app wrote the last message; how many were sent."""
        total = self.fact("messages_sent", self.stop_producer().latest)
        self.say(f"the producer stopped after {total} messages")
        self.wait_for_value(total)
        return total

    def wait_until_aged_out(self, offset: int) -> OffsetWindow:
        """Wait until retention has deleted the segment holding `offset` (earliest > offset)."""
        return wait_until(lambda: self._aged_out(offset), timeout=self.timings.aging_out_timeout_sec,
                          what=f"retention to delete offset {offset}",
                          progress=self.narrator.waiting, poll=0.5)

    def set_retention(self, retention_sec: float) -> None:
        """Change the topic's retention now (what `kafka-configs --alter` does)."""
        kafka = self._kafka()
        assert kafka.probe is not None
        kafka.probe.set_retention(retention_sec)
        self.timeline.event(f"retention {retention_sec:g} s", "note")
        self.say(f"topic retention set to {retention_sec:g} s")

    def wait_until_earliest_settles(self) -> OffsetWindow:
        """Wait until Kafka's earliest offset stays put over two retention checks.

        After retention was raised, a deletion already under way may still move it once.
        """
        quiet_for = 2 * self.timings.retention_check_sec + 1.0
        seen: list[tuple[float, int]] = []

        def settled() -> OffsetWindow | None:
            window = self.window()
            now = time.monotonic()
            if not seen or seen[-1][1] != window.earliest:
                seen.append((now, window.earliest))
            return window if now - seen[-1][0] >= quiet_for else None

        return wait_until(settled, timeout=quiet_for + self.timings.aging_out_timeout_sec,
                          what="Kafka's earliest offset to settle", progress=self.narrator.waiting,
                          poll=0.5)

    def _aged_out(self, offset: int) -> OffsetWindow | None:
        window = self.window()
        return window if window.earliest > offset else None

    # -- the Spark app ----------------------------------------------------------------------------
    def start_spark(self, **options: Any) -> ManagedProcess:
        if self.spark is None:
            raise StepFailed("start Kafka before the Spark app")
        process = self.spark.start(**options)
        # Another PySpark's interpreter (spark-upgrade) is named by the scenario's own steps.
        shown = " ".join(f"{k}={v}" for k, v in options.items() if k != "python")
        self.timeline.event(f"start {self.spark.starts}" + (f" ({shown})" if shown else ""), "start")
        self.timeline.app_up()
        self.say(f"Spark app started (run {self.spark.starts}, pid {process.pid}) {shown}".rstrip())
        return process

    def start_spark_and_see_first_value(self, **options: Any) -> tuple[int, OffsetWindow, OffsetWindow]:
        """Start the app; return the first value it writes and Kafka's offsets around its start.

        The app fixes where it starts reading while it starts up. Kafka's offsets read just
        before the start and when the first value shows up bound that position from both sides.
        """
        before_messages = self.verify().messages
        before = self.window()
        self.start_spark(**options)
        report = self.wait_for_messages(before_messages + 1)
        after = self.window()
        first = report.values[before_messages]
        self.say(f"first value written: {first}; Kafka's offsets were {before.earliest}:"
                 f"{before.latest} before the start, {after.earliest}:{after.latest} when it showed up")
        return first, before, after

    def kill_spark(self) -> None:
        process = self._spark()
        process.kill()
        self.timeline.event("kill -9", "kill")
        self.timeline.app_down()
        self.say(f"kill -9 of the Spark app's process group (pid {process.pid})")

    def stop_spark(self, timeout: float = 120.0) -> int | None:
        """SIGTERM: the app stops its query cleanly and exits 0."""
        process = self._spark()
        code = process.terminate(timeout=timeout)
        self._note_lag(process)
        self.timeline.event("SIGTERM", "stop")
        self.timeline.app_down()
        self.say(f"the Spark app stopped on SIGTERM with exit code {code}")
        return code

    def wait_spark_exit(self, timeout: float | None = None, kind: str = "exit") -> int:
        process = self._spark()
        code = process.wait_exit(timeout or self.timings.spark_start_timeout_sec,
                                 progress=self.narrator.waiting)
        self._note_lag(process)
        self.timeline.event(f"exit {code}", "crash" if kind == "crash" else "exit")
        self.timeline.app_down()
        self.say(f"the Spark app exited with code {code}")
        return code

    def _note_lag(self, process: ManagedProcess) -> None:
        """The largest lag (maxOffsetsBehindLatest) any batch of any run showed, for the report."""
        lags = lag_in_output(process.output())
        if lags:
            seen = max(lags.values())
            self.fact("max_offsets_behind_latest", max(seen, self.facts.get("max_offsets_behind_latest", 0)))

    def spark_output(self) -> str:
        return self._spark().output()

    def delete_checkpoint(self) -> None:
        if self._spark().running:
            raise StepFailed("stop the Spark app before deleting its checkpoint")
        if self.folders.checkpoints.exists():
            shutil.rmtree(self.folders.checkpoints)
        self.timeline.event("checkpoint deleted", "reset")
        self.say(f"deleted {self.folders.checkpoints}")

    def committed_offset(self) -> int | None:
        return committed_offset(self.folders.checkpoints)

    # -- the output log -----------------------------------------------------------------------------
    def verify(self) -> VerifyReport:
        path = self.folders.output_log
        return verify_file(path) if path.exists() else verify([])

    def verify_sent(self) -> VerifyReport:
        """The output log held against everything the producer sent, so a message lost after the
        highest value written is missing too. What was sent is the producer's log, completed by
        the topic for a message acknowledged as the producer was stopped, before its line."""
        report = self.verify()  # first: all it holds was sent, and recorded, before it was read
        kafka = self._kafka()
        logged = read_producer_log(self.folders.log / LOG_FILE_NAME, kafka.topic)
        return verify_sent(report, union(logged, read_topic(kafka.bootstrap_servers, kafka.topic)))

    def wait_for_value(self, value: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the output log holds `value` or higher, while the Spark app keeps running."""
        return self.wait_for_app_value(self._spark(), self.folders.output_log, value, timeout)

    def wait_for_app_value(self, process: ManagedProcess, output_log: Path, value: int,
                           timeout: float | None = None, app: str | None = None) -> VerifyReport:
        """Wait until `output_log` holds `value` or higher, while `process` keeps running.

        `app` names a second app beside the scenario's own (the upgrade's green) in what is said.
        """
        log_name = f"{app}'s output log" if app else "output log"
        where = log_name if app else f"the {log_name}"

        def reached() -> VerifyReport | None:
            report = verify_file(output_log) if output_log.exists() else verify([])
            if report.highest is not None and report.highest >= value:
                return report
            if not process.running:
                raise ProcessError(f"{app or 'the Spark app'} exited with code {process.returncode} "
                                   f"before writing value {value}: {_last_words(process)}")
            return None

        report = wait_until(reached, timeout=timeout or self.timings.spark_start_timeout_sec,
                            what=f"value {value} in {where}",
                            progress=self.narrator.waiting, poll=0.3)
        self.say(f"{log_name} reached value {report.highest} (count {report.final_count})")
        return report

    def wait_for_batches(self, batches: int, timeout: float | None = None) -> int:
        """Wait until the running app has printed `batches` batch lines (batches that read data)."""
        process = self._spark()

        def done() -> int | None:
            seen = len(durations_in_output(process.output()))
            if seen >= batches:
                return seen
            if not process.running:
                raise ProcessError(f"the Spark app exited with code {process.returncode} after "
                                   f"{seen} batch(es): {_last_words(process)}")
            return None

        seen = wait_until(done, timeout=timeout or self.timings.spark_start_timeout_sec * 2,
                          what=f"{batches} batches", progress=self.narrator.waiting, poll=0.5)
        self.say(f"the Spark app has run {seen} batches")
        return seen

    def wait_for_more(self, values: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the highest value in the output log has grown by `values`."""
        report = self.verify()
        return self.wait_for_value((report.highest or 0) + values, timeout)

    def wait_for_messages(self, messages: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the output log holds `messages` messages in all (replays included)."""
        process = self._spark()

        def reached() -> VerifyReport | None:
            report = self.verify()
            if report.messages >= messages:
                return report
            if not process.running:
                raise ProcessError(f"the Spark app exited with code {process.returncode} before "
                                   f"writing {messages} messages: {_last_words(process)}")
            return None

        return wait_until(reached, timeout=timeout or self.timings.spark_start_timeout_sec,
                          what=f"{messages} messages in the output log",
                          progress=self.narrator.waiting, poll=0.3)

    # -- helpers ------------------------------------------------------------------------------------
    def _kafka(self) -> KafkaSide:
        if self.kafka is None:
            raise StepFailed("Kafka has not been started in this scenario")
        return self.kafka

    def _spark(self) -> ManagedProcess:
        if self.spark is None or self.spark.current is None:
            raise StepFailed("the Spark app has not been started in this scenario")
        return self.spark.current


def _last_words(process: ManagedProcess) -> str:
    """What a Spark app that died said last, with a hint when its own retention overtook it."""
    tail = process.tail(2)
    if isinstance(error_in_text(tail), DataLossError):
        tail += ("\n(retention deleted offsets the running app had planned to read: its batches "
                 "take longer than retention on this machine; run without --fast, or on a less "
                 "busy machine)")
    return tail
