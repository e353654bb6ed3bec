"""The stage's output: what the app wrote, verified, and waited for.

The output log is read with the verifier (scenarios/checker/verify.py); the app's console
with the batch line's own parser (spark_app/lines/batch_line.py). Every wait holds only while the
app runs: an app that died fails the step at once with its last words.

Usage:
    report = stage.output.wait_for_value(10)
    stage.expect(exactly_once(stage.output.verify_sent(), 10))
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_app.logs import LOG_FILE_NAME
from kafka_app.sent_records import SENT_RECORDS_FILE
from launch.commands import oracle_command
from launch.process import CONSOLE_SUFFIX
from oracle.evaluate import LostRange
from scenarios.checker.query_results import QueryVerdict, compare
from scenarios.checker.sent_record import read_producer_log, read_topic, union
from scenarios.checker.verify import VerifyReport, verify, verify_file, verify_sent
from scenarios.engine.stage.app import AppPart
from scenarios.errors import StepFailed
from spark_app.checkpoint.reader import read_checkpoint
from spark_app.lines.batch_line import late_in_output, parse_batch_lines
from spark_app.lines.output_line import MessageLine, parse_line
from spark_app.lines.query_rows import read_rows, read_written
from spark_app.settings import SparkAppSettings

if TYPE_CHECKING:
    from scenarios.engine.stage import Stage

__all__ = ["OutputPart"]


class OutputPart:
    """The output log of one app (the scenario's own unless told otherwise)."""

    def __init__(self, stage: Stage, app: AppPart) -> None:
        self._stage = stage
        self._app = app

    def of(self, app: AppPart) -> OutputPart:
        """The output of another app (one made with `stage.app.beside`)."""
        return OutputPart(self._stage, app)

    @property
    def _log_name(self) -> str:
        return "output log" if self._app.name == "spark" else f"{self._app.label}'s output log"

    # -- verdicts -------------------------------------------------------------------------------
    def verify(self) -> VerifyReport:
        path = self._app.folders.output_log
        return verify_file(path) if path.exists() else verify([])

    def verify_sent(self) -> VerifyReport:
        """The output log held against everything the producer sent, so a message lost after the
        highest value written is missing too. What was sent is the producer's log, completed by
        the topic for a message acknowledged as the producer was stopped, before its line."""
        report = self.verify()  # first: all it holds was sent, and recorded, before it was read
        kafka = self._stage.kafka
        logged = read_producer_log(self._stage.folders.log / LOG_FILE_NAME, kafka.topic)
        return verify_sent(report, union(logged, read_topic(kafka.bootstrap_servers, kafka.topic)))

    def message_lines(self) -> list[MessageLine]:
        """Every message line of the output log, in log order (with `--output-format v2` each
        names the partition and offset it was read from)."""
        path = self._app.folders.output_log
        if not path.exists():
            return []
        lines = (parse_line(text) for text in path.read_text(encoding="utf-8").splitlines())
        return [line for line in lines if isinstance(line, MessageLine)]

    def negative_key_lines(self, value: int) -> int:
        """How many message lines of the output log hold the message sent with key -value."""
        text = self._app.folders.output_log.read_text(encoding="utf-8")
        lines = (parse_line(line) for line in text.splitlines())
        return sum(
            1
            for line in lines
            if isinstance(line, MessageLine) and line.key == -value and line.value == value
        )

    # -- a user's query ---------------------------------------------------------------------------
    @property
    def _query(self) -> Path | None:
        return self._stage.settings.query

    def wait_until_read(self, messages: int, timeout: float | None = None) -> int:
        """Wait until the app's checkpoint has committed `messages` messages in all (its end
        offsets summed over partitions): what a query module has read, since its rows do not
        say which messages they came from. The counter's value n is the n-th message sent."""

        def reached() -> int | None:
            committed = self._app.committed_offset() or 0
            return committed if committed >= messages else None

        read = self._app.wait_while_up(reached, f"{messages} messages committed", timeout)
        self._stage.say(f"the checkpoint has committed {read} messages")
        return read

    def evaluate(
        self,
        query: Path,
        lost: Sequence[str] = (),
        records: Path | None = None,
        topic: str | None = None,
    ) -> Path:
        """The oracle's rows for `query` over every record sent (less the `lost` ranges,
        `TOPIC:PARTITION:FROM-UNTIL`, that retention deleted first): the file they are in.
        `records` and `topic`: another file of sent records and its topic (a kept corpus's)
        instead of the producer's."""
        stage, settings = self._stage, self._stage.settings
        number = len(stage.group.processes)
        expected = stage.folders.root / "oracle" / f"expected-{number}.jsonl"
        oracle = stage.group.start(
            f"oracle-{number}",
            oracle_command(
                query,
                records or stage.folders.log / SENT_RECORDS_FILE,
                expected,
                topic=topic or stage.kafka.topic,
                lost=lost,
                python=settings.spark_python,
            ),
        )
        stage.say(f"the oracle evaluates {query.name} over every record sent")
        with stage.spent.timed("oracle"):  # BENCHMARKS.md: the oracle's share of a run
            code = oracle.wait_exit(
                3 * stage.timings.spark_start_timeout_sec, progress=stage.waiting
            )
        if code != 0:
            raise StepFailed(f"the oracle exited {code}: {oracle.tail()}")
        return expected

    def judge_query(self, lost: Sequence[str] = ()) -> QueryVerdict:
        """The query's rows held against the oracle's evaluation of every record sent (less
        the `lost` ranges that retention deleted first)."""
        stage, settings = self._stage, self._stage.settings
        checked = settings.query_checked
        if settings.query is None or checked is None:
            raise StepFailed("judge_query needs a query module: run with --query FILE.py")
        expected = self.evaluate(settings.query, lost)
        written = read_written(SparkAppSettings(log_dir=self._app.folders.log).query_output)
        late = sum(
            late_in_output(out.read_text(errors="replace"))
            for out in stage.folders.processes.glob(f"{self._app.name}-*{CONSOLE_SUFFIX}")
        )
        verdict = compare(
            read_rows(expected),
            written,
            mode=checked.mode,
            key=checked.key,
            boundary_dependent=bool(checked.depends_on),
            late_dropped=late,
        )
        for line in verdict.summary_lines():
            stage.say(f"oracle: {line}")
        return verdict

    def judge_query_until_last_commit(self) -> QueryVerdict:
        """The query's rows against the oracle over every record up to the checkpoint's last
        commit: for a run whose app stopped for good (a supervisor that gave up, a line that
        refused), whose later records were never read, so they are left out, each range said."""
        last = read_checkpoint(self._app.checkpoint_view()).last_committed
        ends = (last.end or {}) if last is not None else {}
        # Open-ended: the producer may still be sending while the oracle reads what it sent.
        unread = tuple(
            LostRange(tp.topic, tp.partition, end).text() for tp, end in sorted(ends.items())
        )
        self._stage.say(
            "the oracle leaves out what the app never read, past its last commit: "
            + (", ".join(f"{span}…" for span in unread) or "nothing")
        )
        return self.judge_query(lost=unread)

    # -- waits ----------------------------------------------------------------------------------
    def wait_for_value(self, value: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the output log holds `value` or higher, while the app keeps running.
        With a query module (no output log), until the checkpoint has committed that many
        messages; the report is then the empty one (the oracle judges the query at the end)."""
        if self._query is not None:
            self.wait_until_read(value, timeout)
            return verify([])

        def reached() -> VerifyReport | None:
            report = self.verify()
            return report if report.highest is not None and report.highest >= value else None

        where = self._log_name if self._app.name != "spark" else f"the {self._log_name}"
        report = self._app.wait_while_up(reached, f"value {value} in {where}", timeout)
        self._stage.say(
            f"{self._log_name} reached value {report.highest} (count {report.final_count})"
        )
        return report

    def wait_for_more(self, values: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the highest value in the output log has grown by `values` (with a query
        module: the messages the checkpoint committed)."""
        if self._query is not None:
            self.wait_until_read((self._app.committed_offset() or 0) + values, timeout)
            return verify([])
        return self.wait_for_value((self.verify().highest or 0) + values, timeout)

    def wait_for_messages(self, messages: int, timeout: float | None = None) -> VerifyReport:
        """Wait until the output log holds `messages` messages in all (replays included)."""

        def reached() -> VerifyReport | None:
            report = self.verify()
            return report if report.messages >= messages else None

        return self._app.wait_while_up(reached, f"{messages} messages in the output log", timeout)

    def wait_for_batches(self, batches: int, *, more: bool = False, poll: float = 0.5) -> int:
        """Wait until the app's latest start has printed `batches` batch lines (`more`: that
        many more than now); returns how many it printed."""
        since = self._app.mark() if more else 0

        def done() -> int | None:
            seen = len(parse_batch_lines(self._app.output(since)))
            return seen if seen >= batches else None

        start_sec = self._stage.timings.spark_start_timeout_sec
        if more:
            return self._app.wait_while_up(
                done, f"{batches} more batch line(s) from the Spark app", start_sec, poll=poll
            )
        seen = self._app.wait_while_up(done, f"{batches} batches", start_sec * 2, poll=poll)
        self._stage.say(f"the Spark app has run {seen} batches")
        return seen
