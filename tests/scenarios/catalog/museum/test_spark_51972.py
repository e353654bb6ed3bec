"""The checksum exhibit's pure parts, without Spark: which files are Spark's checksums, which
two deltas it swaps, and the files judged against a line's status."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.catalog.museum.spark_51972 import (
    checksum_value,
    checksums_judged,
    delta_pair,
    hadoop_crc,
    retry_judged,
    spark_checksums,
)
from spark_app.lines.known_bug_table import ABSENT, FIXED, PRESENT


def _checkpoint(tmp: Path, spark_crc: bool) -> Path:
    """A checkpoint as 4.1.1 (spark_crc) or 4.2.0 left it after three batches on format 1."""
    cp = tmp / "checkpoints"
    partition = cp / "state" / "0" / "0"
    (cp / "offsets").mkdir(parents=True)
    partition.mkdir(parents=True)
    for batch in range(3):
        (cp / "offsets" / str(batch)).write_text("v1")
        (cp / "offsets" / f".{batch}.crc").write_text("h")  # Hadoop's, hidden
        (partition / f"{batch + 1}.delta").write_bytes(bytes([batch]))
        (partition / f".{batch + 1}.delta.crc").write_text("h")
        if spark_crc:
            (partition / f"{batch + 1}.delta.crc").write_text('{"algorithm":"CRC32C"}')
    (cp / ".metadata.crc").write_text("h")
    return cp


def test_spark_checksums_are_the_visible_crc_files_hadoops_hidden_ones_are_not(
    tmp_path: Path,
) -> None:
    assert spark_checksums(_checkpoint(tmp_path / "a", spark_crc=True)) == [
        "state/0/0/1.delta.crc",
        "state/0/0/2.delta.crc",
        "state/0/0/3.delta.crc",
    ]
    assert spark_checksums(_checkpoint(tmp_path / "b", spark_crc=False)) == []
    assert spark_checksums(tmp_path / "none") == []


def test_hadoops_checksum_is_hidden_beside_the_file() -> None:
    assert hadoop_crc(Path("cp/state/0/0/3.delta")) == Path("cp/state/0/0/.3.delta.crc")


def test_the_newest_delta_and_the_one_before_are_swapped() -> None:
    assert delta_pair({1: ["1.delta"], 2: ["2.delta"], 3: ["3.delta"]}) == (2, 3)
    # A snapshot without a delta of its version is not a pair.
    assert delta_pair({1: ["1.delta"], 2: ["2.delta"], 3: ["3.snapshot"]}) == (1, 2)
    with pytest.raises(ValueError, match="no two delta files"):
        delta_pair({1: ["1.delta"]})


DELTAS = ["1.delta", "2.delta", "3.delta"]


@pytest.mark.parametrize(
    ("status", "found", "held"),
    [
        (PRESENT, [f"state/0/0/{d}.crc" for d in DELTAS], True),
        (PRESENT, ["state/0/0/1.delta.crc"], False),  # some files unchecked
        (PRESENT, [], False),
        (FIXED, [], True),
        (ABSENT, [], True),
        (FIXED, ["state/0/0/3.delta.crc"], False),  # 4.2 checking format 1 again
        (None, [], True),  # a line never run: nothing written
    ],
)
def test_checksum_files_are_judged_by_the_lines_status(
    status: str | None, found: list[str], held: bool
) -> None:
    judged, expected, actual = checksums_judged(status, DELTAS, found)
    assert judged == held and expected and "state files with a `.crc`" in actual


def test_no_state_files_is_not_checksums_present() -> None:
    assert not checksums_judged(PRESENT, [], [])[0]


def test_the_checksum_a_spark_crc_holds() -> None:
    # As 4.1.1 wrote state/0/0/1.delta.crc in the exhibit (26 Nov 2026).
    written = (
        '{"algorithm":"CRC32C","value":2068309322,"mainFileSize":76,'
        '"timestampMs":1795670441772,"creator":{"executorId":"driver",'
        '"taskInfo":"Task= 0.0, Stage= 2.0"}}'
    )
    assert checksum_value(written) == 2068309322
    assert checksum_value("not json") is None
    assert checksum_value("[1, 2]") is None
    assert checksum_value('{"value": "x"}') is None


def _print(
    inode: int = 7, mtime: int = 1, sha: str = "ab", crc: int | None = 5
) -> dict[str, object]:
    return {"inode": inode, "mtime_ns": mtime, "sha256": sha, "checksum": crc, "crc_mtime_ns": 1}


def test_a_retry_that_kept_the_dead_attempts_file_holds() -> None:
    held, actual = retry_judged(3, _print(), _print())
    assert held and "kept: the retry did not replace it" in actual


def test_a_retry_that_replaced_the_file_holds_only_with_the_same_bytes_and_checksum() -> None:
    held, actual = retry_judged(3, _print(), _print(inode=8, mtime=2))
    assert held and "replaced by the retry" in actual
    assert not retry_judged(3, _print(), _print(inode=8, mtime=2, sha="cd"))[0]
    assert not retry_judged(3, _print(), _print(inode=8, mtime=2, crc=6))[0]


def test_no_pending_batch_or_no_file_does_not_hold() -> None:
    assert not retry_judged(None, _print(), _print())[0]
    held, actual = retry_judged(3, None, _print())
    assert not held and "before missing" in actual
