"""The museum's table (spark_app/lines/known_bug_table.py): what each Spark line does per exhibit, and
the verdict an observed outcome gets on a version."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkpoint_stores import CheckpointPlace
from spark_app.failures import explain_failure
from spark_app.lines.known_bug_table import (
    ABSENT,
    FIXED,
    MUSEUM,
    PRESENT,
    RAN_ON,
    bug_named,
    error_classes_in,
    judge,
    line_of,
)
from spark_app.lines.known_spark_bugs import AFFECTED_LINE, TICKET
from spark_app.settings import SparkAppSettings

METADATA = bug_named("SPARK-55058")
STATE_DIR = bug_named("SPARK-54307")


def test_each_exhibit_tells_a_user_what_they_see_and_what_to_do() -> None:
    assert len({b.ticket for b in MUSEUM}) == len(MUSEUM)
    for bug in MUSEUM:
        assert bug.ticket.startswith("SPARK-") and bug.title and bug.user_sees and bug.workaround
        assert bug.when_present != bug.when_fixed
        assert set(bug.lines.values()) <= {PRESENT, FIXED, ABSENT}
        assert all(line_of(line + ".0") == line for line in bug.lines)
        # An exhibit that runs has every line it was run on; one that points names where.
        assert bug.lines or bug.shown_by


def test_the_apps_line_for_the_connector_bug_reads_its_lines_from_the_table() -> None:
    bug = bug_named(TICKET)
    assert [line for line, s in bug.lines.items() if s == PRESENT] == [AFFECTED_LINE]
    assert bug.needs_connector


@pytest.mark.parametrize(
    ("version", "observed", "held", "status"),
    [
        ("4.0.0", RAN_ON, True, PRESENT),
        ("4.1.1", RAN_ON, True, PRESENT),
        ("4.2.0", "STREAMING_CHECKPOINT_MISSING_METADATA_FILE", True, FIXED),
        ("4.3.0", "STREAMING_CHECKPOINT_MISSING_METADATA_FILE", True, FIXED),
        # The fix gone again on a later release: a regression.
        ("4.3.0", RAN_ON, False, PRESENT),
        # A fix that came earlier than recorded is a difference too: the table must be corrected.
        ("4.1.1", "STREAMING_CHECKPOINT_MISSING_METADATA_FILE", False, FIXED),
        # A third behaviour is neither the bug's nor the fix's.
        ("4.2.0", "INTERNAL_ERROR", False, None),
    ],
)
def test_the_verdict_of_an_observed_outcome_on_a_version(
    version: str, observed: str, held: bool, status: str | None
) -> None:
    verdict = judge(METADATA, version, observed)
    assert (verdict.held, verdict.status) == (held, status)
    assert verdict.ticket == "SPARK-55058" and f"Spark {version}" in verdict.actual
    assert observed in verdict.actual
    wanted = METADATA.lines[line_of(version)]
    assert verdict.expected == f"{wanted}: {METADATA.expected_on(line_of(version))}"


def test_a_line_nobody_ran_is_a_failed_verdict_that_says_to_record_it() -> None:
    verdict = judge(METADATA, "4.9.0", RAN_ON)
    assert not verdict.held and "4.9 line" in verdict.expected
    assert "known_bug_table" in verdict.expected


def test_error_classes_are_read_from_the_apps_line_round_trip(tmp_path: Path) -> None:
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"), log_dir=tmp_path / "log"
    )
    raised = (
        "[STREAMING_CHECKPOINT_MISSING_METADATA_FILE] Checkpoint location "
        f"{tmp_path} is in an inconsistent state: the metadata file is missing … SQLSTATE: "
        "42K03\n\tat org.apache.spark.sql.execution.streaming.StreamExecution.<init>"
    )
    line = f"spark_app: {explain_failure(RuntimeError(raised), settings)}"
    assert error_classes_in(line, (METADATA.when_present, METADATA.when_fixed)) == [
        "STREAMING_CHECKPOINT_MISSING_METADATA_FILE"
    ]


def test_a_state_error_inside_foreach_batch_is_named_not_its_wrapper(tmp_path: Path) -> None:
    """As PySpark 4.0.0 raised it in the SPARK-54307 exhibit (shortened): the wrapper's text
    holds the Python traceback, whose paths say "checkpoint", then Spark's own condition."""
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"), log_dir=tmp_path / "log"
    )
    raised = (
        "[STREAM_FAILED] Query [id = 29f3, runId = 3e0a] terminated with exception: "
        "[FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided function "
        "in foreach batch sink. Reason: An exception was raised by the Python Proxy. Return "
        "Message: Traceback (most recent call last):\n"
        '  File "/root/.cache/checkpoint-experience/pyspark/4.0.0/lib/python3.11/site-'
        'packages/py4j/clientserver.py", line 644, in _call_proxy\n'
        "py4j.protocol.Py4JJavaError: An error occurred while calling o131.getResult.\n"
        "Caused by: org.apache.spark.SparkException: [CANNOT_LOAD_STATE_STORE."
        "CANNOT_READ_DELTA_FILE_NOT_EXISTS] An error occurred during loading state. Error "
        "reading delta file file:/x/checkpoints/state/0/0/1.delta of HDFSStateStoreProvider"
        "[id = (op=0,part=0),dir = file:/x/checkpoints/state/0/0]: file:/x/checkpoints/state/"
        "0/0/1.delta does not exist"
    )
    line = f"spark_app: {explain_failure(RuntimeError(raised), settings)}"
    assert "\n" not in line and "Restore the missing state file" in line
    found = error_classes_in(line, (STATE_DIR.when_present, STATE_DIR.when_fixed))
    assert found[0] == "CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS"
    assert "FOREACH_BATCH_USER_FUNCTION_ERROR" not in found


def test_a_checksum_that_does_not_match_is_named_inside_its_wrapper(tmp_path: Path) -> None:
    """As PySpark 4.1.1 raised it in the SPARK-51972 exhibit (shortened): the state store's
    wrapper says only that loading failed; the cause names Spark's checksum and the file."""
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"), log_dir=tmp_path / "log"
    )
    raised = (
        "[STREAM_FAILED] Query [id = aecd, runId = 50cf] terminated with exception: "
        "[FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided function "
        "in foreach batch sink.\n"
        "py4j.protocol.Py4JJavaError: An error occurred while calling o133.getResult.\n"
        "Caused by: org.apache.spark.SparkException: [CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] "
        "An error occurred during loading state.  SQLSTATE: 58030\n"
        "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.cannotLoadStore(x.scala:1)\n"
        "Caused by: org.apache.spark.SparkException: [CHECKPOINT_FILE_CHECKSUM_VERIFICATION_"
        "FAILED] Checksum verification failed, the file may be corrupted. File: "
        "file:/x/checkpoints/state/0/0/3.delta\n"
        "Expected (file size: 76, checksum: -393683586), Computed (file size: 76, "
        "checksum: -1285099644). SQLSTATE: XX000"
    )
    line = f"spark_app: {explain_failure(RuntimeError(raised), settings)}"
    assert "\n" not in line and "/x/checkpoints/state/0/0/3.delta does not match" in line
    assert "Restore the missing state file" not in line and "SPARK-56461" in line
    checksums = bug_named("SPARK-51972")
    found = error_classes_in(line, (checksums.when_present, checksums.when_fixed))
    assert found[0] == "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED"


def test_a_format_2_zip_that_does_not_match_is_storage_not_a_retry(tmp_path: Path) -> None:
    """As PySpark 4.2.0 raised it in the SPARK-51988 exhibit with automatic snapshot repair off
    (shortened): the zip is named by its attempt, so the format-1 advice (a retry's own file,
    delete its `.crc`) would be wrong; the line says restore it, or let the repair pass it over."""
    settings = SparkAppSettings(
        checkpoint=CheckpointPlace(folder=tmp_path / "checkpoints"), log_dir=tmp_path / "log"
    )
    zip_name = "3_0fea0a77-f20f-4f0f-aff5-73822e34cfb1.zip"
    raised = (
        "[STREAM_FAILED] Query [id = aecd, runId = 50cf] terminated with exception: "
        "[FOREACH_BATCH_USER_FUNCTION_ERROR] An error occurred in the user provided function "
        "in foreach batch sink.\n"
        "Caused by: org.apache.spark.SparkException: [CANNOT_LOAD_STATE_STORE.UNCATEGORIZED] "
        "An error occurred during loading state.  SQLSTATE: 58030\n"
        "Caused by: org.apache.spark.SparkException: [CHECKPOINT_FILE_CHECKSUM_VERIFICATION_"
        "FAILED] Checksum verification failed, the file may be corrupted. File: "
        f"file:/x/checkpoints/state/0/0/{zip_name}\n"
        "Expected (file size: 3763, checksum: 1), Computed (file size: 3763, checksum: 2)."
    )
    line = f"spark_app: {explain_failure(RuntimeError(raised), settings)}"
    assert "\n" not in line and f"/x/checkpoints/state/0/0/{zip_name} does not match" in line
    assert "format 2" in line and "Restore it from a copy" in line
    assert "autoSnapshotRepair.enabled" in line and "delete its `.crc`" not in line
    found = error_classes_in(line, (bug_named("SPARK-51988").when_fixed,))
    assert "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED" in found


@pytest.mark.parametrize(
    ("version", "observed", "held"),
    [
        ("4.0.0", RAN_ON, True),  # no checksums before 4.1: the file loads
        ("4.1.1", "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED", True),
        ("4.2.0", RAN_ON, True),  # checksums on format 2 only
        ("4.2.0", "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED", False),  # format 1 checked again
        ("4.1.1", RAN_ON, False),  # a 4.1 that no longer checks format 1: record it
    ],
)
def test_the_checksum_exhibit_is_judged_per_line(version: str, observed: str, held: bool) -> None:
    assert judge(bug_named("SPARK-51972"), version, observed).held == held


def test_a_line_without_a_class_has_none() -> None:
    assert error_classes_in("spark_app: KAFKA_UNREACHABLE: no broker at 127.0.0.1:9092") == []


def test_a_lines_own_words_for_the_same_status_are_its_expected_outcome() -> None:
    from dataclasses import replace

    older = replace(STATE_DIR, seen={"4.0": "CANNOT_LOAD_STATE_STORE.SOME_OLDER_NAME"})
    assert older.expected_on("4.0") == "CANNOT_LOAD_STATE_STORE.SOME_OLDER_NAME"
    assert older.expected_on("4.1") == STATE_DIR.when_present
    assert judge(older, "4.0.1", "CANNOT_LOAD_STATE_STORE.SOME_OLDER_NAME").held
    # The 4.1 line's usual words on 4.0 are still the bug, but not what 4.0 was seen to say.
    verdict = judge(older, "4.0.1", STATE_DIR.when_present)
    assert verdict.status == PRESENT and not verdict.held
    assert older.status_of("CANNOT_LOAD_STATE_STORE.SOME_OLDER_NAME") == PRESENT
    assert older.expected_on("4.9") is None


def test_a_held_verdict_names_the_lines_status_so_absent_never_reads_fixed() -> None:
    """On a line that never had the bug the outcome is the fixed one's; the cell says absent."""
    guard = bug_named("SPARK-56400")
    assert guard.lines["4.0"] == ABSENT
    verdict = judge(guard, "4.0.0", guard.expected_on("4.0"))
    assert verdict.held and verdict.actual.startswith("absent on Spark 4.0.0: ")
    missed = judge(guard, "4.0.0", guard.when_present)
    assert not missed.held and missed.actual.startswith("present on Spark 4.0.0: ")
