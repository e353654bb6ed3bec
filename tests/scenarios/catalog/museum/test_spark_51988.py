"""The snapshot-zip exhibit's pure parts, without Spark: the byte it flips (the zip still opens,
its files unchanged, Spark's checksum no longer matching), the zip a restart loads, the count
judged, and the outcome held per line."""

from __future__ import annotations

import json
import zipfile
from io import BytesIO
from pathlib import Path

import crc32c
import pytest

from scenarios.catalog.museum.spark_51988 import (
    BUG,
    FLIP_AT,
    FLIP_MASK,
    count_judged,
    flipped,
    outcome_seen,
    snapshot_to_load,
    spark_checksum_matches,
    zip_contents,
)
from spark_app.lines.known_bug_table import RAN_ON, judge

CHECKSUM_FAILED = "CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED"


def _snapshot_zip(seconds: int = 58) -> bytes:
    """A zip shaped like RocksDB's snapshot: deflated entries, the metadata file last."""
    buffer = BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in [
            ("MANIFEST-000005", b"manifest" * 30),
            ("CURRENT", b"MANIFEST-000005\n"),
            ("OPTIONS-000007", b"[DBOptions]\n" * 40),
            ("metadata", b'v1\n{"sstFiles":[],"numKeys":1}'),
        ]:
            info = zipfile.ZipInfo(name, date_time=(2026, 11, 26, 12, 4, seconds))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, body)
    return buffer.getvalue()


def _spark_crc(data: bytes) -> str:
    """A `.crc` as Spark writes it: CRC32C of the whole file as a Java (signed) int."""
    value = crc32c.crc32c(data)
    return json.dumps(
        {
            "algorithm": "CRC32C",
            "value": value - (1 << 32) if value >= 1 << 31 else value,
            "mainFileSize": len(data),
            "timestampMs": 1,
            "creator": {"executorId": "driver", "taskInfo": ""},
        }
    )


@pytest.mark.parametrize("seconds", [0, 30, 58])
def test_the_flip_changes_one_bit_of_the_first_entrys_time_and_nothing_a_reader_checks(
    seconds: int,
) -> None:
    original = _snapshot_zip(seconds)
    changed = flipped(original)
    differ = [i for i, (a, b) in enumerate(zip(original, changed)) if a != b]
    assert differ == [FLIP_AT] and original[FLIP_AT] ^ changed[FLIP_AT] == FLIP_MASK
    assert len(changed) == len(original)
    # The zip still opens and every file comes out as it was (each entry's CRC-32 holds).
    assert zip_contents(changed) == zip_contents(original)


def test_a_byte_flipped_in_an_entrys_data_is_refused_by_the_zip_itself() -> None:
    # Why the exhibit does not flip a data byte: the zip's own CRC-32 (or inflate) refuses it
    # on every line, before Spark's checksum could say anything.
    data = bytearray(_snapshot_zip())
    first_data = 30 + len("MANIFEST-000005")  # the local header, its name, no extra field
    data[first_data + 2] ^= 0x01  # inside the first entry's deflated data
    with pytest.raises(zipfile.BadZipFile, match="Bad CRC-32 for file 'MANIFEST-000005'"):
        zip_contents(bytes(data))


def test_only_a_zip_is_flipped() -> None:
    with pytest.raises(ValueError, match="not a zip"):
        flipped(b"v1\n{}")


def test_sparks_checksum_matches_the_zip_before_the_flip_and_not_after() -> None:
    original = _snapshot_zip()
    crc = _spark_crc(original)
    assert spark_checksum_matches(original, crc) is True
    assert spark_checksum_matches(flipped(original), crc) is False
    assert spark_checksum_matches(original, "not json") is None
    # As 4.2.0 wrote one beside a snapshot zip (checkpoint-v2, 26 Nov 2026): a signed value.
    assert (
        spark_checksum_matches(b"x", '{"algorithm":"CRC32C","value":-393683586,"mainFileSize":1}')
        is False
    )


def _checkpoint(tmp: Path, zips: list[str], last_batch: int, ids: dict[int, str]) -> Path:
    """A format-2 checkpoint: commits/0..last_batch naming each version's id, and the state
    files of each version (a changelog per version, the zips given)."""
    cp = tmp / "cp"
    partition = cp / "state" / "0" / "0"
    partition.mkdir(parents=True)
    (cp / "commits").mkdir()
    for batch in range(last_batch + 1):
        version = batch + 1
        ids_json = json.dumps(
            {"nextBatchWatermarkMs": 0, "stateUniqueIds": {"0": [[ids[version]]]}}
        )
        (cp / "commits" / str(batch)).write_text(f"v2\n{ids_json}")
        (partition / f"{version}_{ids[version]}.changelog").write_bytes(b"")
    for name in zips:
        (partition / name).write_bytes(b"PK")
    return cp


IDS = {v: f"{v:08d}-0000-4000-8000-000000000000" for v in range(1, 12)}


def test_the_zip_a_restart_loads_is_the_newest_committed_one_at_or_below_its_version(
    tmp_path: Path,
) -> None:
    # Batches 0..7 committed: the next batch loads version 8, from the snapshot at 6.
    zips = [f"3_{IDS[3]}.zip", f"6_{IDS[6]}.zip"]
    assert snapshot_to_load(_checkpoint(tmp_path / "a", zips, 7, IDS)) == f"6_{IDS[6]}.zip"
    # A zip of an attempt no commit names (a dead one's) is never loaded.
    stray = "6_99999999-0000-4000-8000-000000000000.zip"
    assert (
        snapshot_to_load(_checkpoint(tmp_path / "b", [f"3_{IDS[3]}.zip", stray], 7, IDS))
        == f"3_{IDS[3]}.zip"
    )
    # No snapshot yet: the load replays changelogs from version 1; nothing to flip.
    assert snapshot_to_load(_checkpoint(tmp_path / "c", [], 2, IDS)) is None
    assert snapshot_to_load(tmp_path / "none") is None


def test_a_count_without_breaks_after_the_restart_is_right() -> None:
    assert count_judged([]) == (True, "no break: every count right")
    held, actual = count_judged(["line 90: value 45 has Count = 43, expected 45 (rewind)"])
    assert not held and "rewind" in actual


@pytest.mark.parametrize(
    ("version", "observed", "held"),
    [
        ("4.0.0", RAN_ON, True),  # no checksums at all: loaded, as before
        ("4.1.1", RAN_ON, True),  # checksums written, the zip's never read
        ("4.2.0", BUG.when_fixed, True),  # the zip read through the checking manager, passed over
        ("4.2.0", RAN_ON, False),  # the fix gone: a regression
        ("4.2.0", CHECKSUM_FAILED, False),  # refused instead of passed over: not what ran
        ("4.1.1", CHECKSUM_FAILED, False),  # a fix nobody recorded
        ("4.0.0", "CANNOT_LOAD_STATE_STORE.UNCATEGORIZED", False),  # neither
        ("4.3.0", BUG.when_fixed, True),  # as 4.2.0 (run with --offline)
        ("4.4.0", BUG.when_fixed, False),  # a line never run: no status to hold it to
    ],
)
def test_the_restarts_outcome_is_held_against_its_line(
    version: str, observed: str, held: bool
) -> None:
    assert judge(BUG, version, observed).held is held


ZIP = "3_96255538-4dbb-46c1-aa57-008a97c13ea1.zip"
# spark.log of the restart on 4.2.0 (26 Nov 2026), the store's line and Spark's error, shortened.
LOG_420 = (
    "[ERROR] [2026-11-26 12:10:26,522] [RocksDB$$anon$2 StateStoreProviderId[ storeId=StateStoreId["
    " operatorId=0, partitionId=0, storeName=default ], queryRunId=4fc8c05d ]]: Failed to load "
    "snapshot version 3 (uniqueId: 96255538-4dbb-46c1-aa57-008a97c13ea1), attempt 1 out of 1 "
    "attempts\norg.apache.spark.SparkException: [CHECKPOINT_FILE_CHECKSUM_VERIFICATION_FAILED] "
    "Checksum verification failed, the file may be corrupted. File: file:/r/known-bugs/"
    f"checkpoints/state/0/0/{ZIP}\nExpected (file size: 3763, checksum: 681259352), Computed "
    "(file size: 3763, checksum: 540512304). SQLSTATE: XX000\n"
)


def test_a_restart_that_went_on_after_the_check_failed_on_the_zip_is_the_fix() -> None:
    outcome, said = outcome_seen(RAN_ON, LOG_420, ZIP)
    assert outcome == BUG.when_fixed and judge(BUG, "4.2.0", outcome).held
    assert "Failed to load snapshot version 3" in said and ZIP in said


def test_a_restart_that_went_on_without_a_word_is_the_bug() -> None:
    assert outcome_seen(RAN_ON, "[WARN] nothing about checksums\n", ZIP) == (RAN_ON, "")
    # The check failing on another file is not this zip's.
    assert outcome_seen(RAN_ON, LOG_420, "6_other.zip") == (RAN_ON, "")


def test_a_refused_restart_stays_refused() -> None:
    assert outcome_seen(CHECKSUM_FAILED, LOG_420, ZIP) == (CHECKSUM_FAILED, "")
