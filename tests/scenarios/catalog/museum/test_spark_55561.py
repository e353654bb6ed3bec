"""The cut-at-the-first-look-up exhibit's pure parts, without Spark: the retry window its
options give, the connector's failed attempts read from spark.log, the batch read's lines, and
the table's row judged per line."""

from __future__ import annotations

import pytest

from scenarios.catalog.known_bugs import chosen_exhibits
from scenarios.catalog.museum.spark_55561 import (
    API_TIMEOUT_MS,
    BUG,
    EXHIBIT,
    NUM_RETRIES,
    RETRY_INTERVAL_MS,
    RETRY_OPTIONS,
    failed_attempts,
    retry_window_sec,
)
from spark_app.lines.known_bug_table import FIXED, PRESENT, RAN_ON, judge
from spark_app.lines.read_lines import READING_WORDS, parse_read_line, read_line, reading_line
from spark_app.lines.start_lines import NEW_CHECKPOINT_WORDS, new_checkpoint_line

# spark.log as PySpark 4.2.0 wrote it in the exhibit (26 Nov 2026, shortened): the connector's
# warning for the first look-up under the cut, then its stack.
SPARK_LOG = """\
[WARN] [2026-11-26 11:58:48,025] [KafkaOffsetReaderAdmin]: Error in attempt 1 getting Kafka offsets: 
java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.TimeoutException: Timed out waiting for a node assignment. Call: listNodes
	at org.apache.spark.sql.kafka010.KafkaOffsetReaderAdmin.withRetries(KafkaOffsetReaderAdmin.scala:466)
	at org.apache.spark.sql.kafka010.KafkaOffsetReaderAdmin.fetchEarliestOffsets(KafkaOffsetReaderAdmin.scala:293)
[WARN] [2026-11-26 11:58:54,101] [KafkaOffsetReaderAdmin]: Error in attempt 2 getting Kafka offsets: 
"""


def test_the_options_are_the_connectors_and_give_the_window_the_step_names() -> None:
    assert RETRY_OPTIONS == (
        "fetchOffset.numRetries=3",
        "fetchOffset.retryIntervalMs=1000",
        "kafka.default.api.timeout.ms=5000",
        "kafka.request.timeout.ms=5000",
    )
    # Every attempt waits for the admin's timeout, then the interval: 3 x (5 s + 1 s).
    assert retry_window_sec() == 18.0
    assert retry_window_sec(1, RETRY_INTERVAL_MS, API_TIMEOUT_MS) == 6.0
    # One attempt's timeout fits well inside the window: a cut lifted after the first failed
    # attempt is one a retried look-up rides out and an unretried one does not.
    assert API_TIMEOUT_MS / 1000 < retry_window_sec() / NUM_RETRIES * (NUM_RETRIES - 1)


def test_failed_attempts_are_read_from_spark_log() -> None:
    assert failed_attempts(SPARK_LOG) == [1, 2]
    assert failed_attempts("[WARN] something else\n") == []


@pytest.mark.parametrize(
    ("version", "observed", "held", "status"),
    [
        ("4.0.0", BUG.when_present, True, PRESENT),
        ("4.1.1", BUG.when_present, True, PRESENT),
        ("4.2.0", RAN_ON, True, FIXED),
        ("4.2.0", BUG.when_present, False, PRESENT),  # the retry gone again: a regression
        ("4.0.0", RAN_ON, False, FIXED),  # a 4.0 with the fix: record it
    ],
)
def test_the_exhibit_is_judged_per_line(
    version: str, observed: str, held: bool, status: str
) -> None:
    verdict = judge(BUG, version, observed)
    assert (verdict.held, verdict.status) == (held, status)


def test_the_reads_lines_round_trip() -> None:
    opening = reading_line("Experience", "127.0.0.1:9092", "4.0.0")
    assert opening.startswith(READING_WORDS) and "Spark 4.0.0's Kafka connector" in opening
    closing = read_line("Experience", {1: (3, 0, 2), 0: (30, 0, 29)})
    assert closing == (
        "read 33 records of Experience: Experience-0 [0, 30) 30, Experience-1 [0, 3) 3"
    )
    assert parse_read_line(f"{opening}\n{closing}\n") == (33, "Experience")
    assert read_line("Empty", {}) == "read 0 records of Empty"
    assert parse_read_line("read 0 records of Empty\n") == (0, "Empty")
    assert parse_read_line(f"{opening}\nspark_app: KAFKA_UNREACHABLE: …\n") is None


def test_the_stream_is_cut_after_the_apps_new_checkpoint_line() -> None:
    assert new_checkpoint_line("earliest").startswith(f"{NEW_CHECKPOINT_WORDS}earliest ")


def test_it_runs_behind_the_proxy_on_the_connector_only() -> None:
    assert EXHIBIT.behind_proxy and BUG.needs_connector
    assert [e.name for e in chosen_exhibits("SPARK-55561")] == [BUG.ticket]
