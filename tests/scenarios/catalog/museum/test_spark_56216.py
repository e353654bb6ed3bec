"""The cut-zip exhibit's pure parts, without Spark: the zip cut short no longer opens, spark.log's
lines on a snapshot passed over are found, and the outcome held per line."""

from __future__ import annotations

import zipfile
from io import BytesIO

import pytest

from scenarios.catalog.museum.spark_56216 import BUG, cut_short, opens, repair_lines
from spark_app.lines.known_bug_table import RAN_ON, judge


def _zip() -> bytes:
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("MANIFEST-000005", "CURRENT", "OPTIONS-000007", "metadata"):
            archive.writestr(name, name.encode() * 40)
    return buffer.getvalue()


def test_a_zip_cut_to_half_no_longer_opens() -> None:
    whole = _zip()
    assert opens(whole)
    cut = cut_short(whole)
    assert len(cut) == len(whole) // 2 and whole.startswith(cut)
    assert not opens(cut)


def test_the_stores_lines_on_a_snapshot_passed_over_are_found() -> None:
    log = (
        "[INFO] Loaded 4 with uniqueId abc\n"
        "[ERROR] [RocksDB]: Failed to load snapshot version 3 (uniqueId: abc), attempt 1 out of 1\n"
        "[WARN] [AutoSnapshotLoader]: Auto snapshot repair: loaded version 0 instead\n"
    )
    found = repair_lines(log)
    assert len(found) == 2 and found[0].startswith("[ERROR]")
    assert repair_lines("[INFO] nothing here\n") == []


@pytest.mark.parametrize(
    ("version", "observed", "held"),
    [
        ("4.1.1", BUG.expected_on("4.1"), True),  # no repair at all: the restart fails
        ("4.1.1", RAN_ON, False),  # a backport nobody recorded
        ("4.2.0", RAN_ON, True),
        ("4.2.0", BUG.when_present, False),  # the repair gone from format 2: a regression
        ("4.0.0", BUG.expected_on("4.0"), True),
    ],
)
def test_the_restarts_outcome_is_held_against_its_line(
    version: str, observed: str, held: bool
) -> None:
    assert judge(BUG, version, observed).held is held
