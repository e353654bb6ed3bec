"""A partition folder's files told apart by name, and a format-2 changelog's lineage read from
its lz4 block stream. The two changelogs in tests/spark_app/data/ were written by Spark 4.2.0
(the app with --state-store rocksdb --changelog-checkpointing, format 2 and format 1)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from spark_app.checkpoint.lz4_block import MAGIC, decompress, decompress_block
from spark_app.checkpoint.state_files import (
    changelog_head,
    classify,
    list_state_files,
    per_version,
    read_lineage,
    snapshot_versions,
    unique_ids_by_version,
)
from spark_app.errors import CheckpointError

DATA = Path(__file__).parent.parent / "data"
ID = "a57c78a4-311c-42ab-9322-cce4aa0c1477"


@pytest.mark.parametrize(
    "name, kind, version, unique_id",
    [
        ("1.delta", "delta", 1, None),
        ("10.snapshot", "snapshot", 10, None),
        ("3.zip", "zip", 3, None),
        ("4.changelog", "changelog", 4, None),
        (f"5_{ID}.changelog", "changelog", 5, ID),
        (f"6_{ID}.zip", "zip", 6, ID),
        (f"6_{ID}.zip.crc", "checksum", None, None),
        ("SSTs/000008-0f1e2d3c-0000-4000-8000-123456789abc.sst", "sst", None, None),
        ("_metadata/schema", "metadata", None, None),
        ("notes.txt", "other", None, None),
    ],
)
def test_classify_by_name(name: str, kind: str, version: int | None, unique_id: str | None) -> None:
    found = classify(name)
    assert (found.kind, found.version, found.unique_id) == (kind, version, unique_id)


def test_a_folder_by_version_with_its_snapshots(tmp_path: Path) -> None:
    for name in (
        "1.changelog",
        "2.changelog",
        "3.changelog",
        "3.zip",
        "4.changelog",
        ".4.changelog.crc",
        "SSTs/000001-x.sst",
        "_metadata/schema",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    files = list_state_files(tmp_path)
    assert ".4.changelog.crc" not in {f.name for f in files}  # Hadoop's, not Spark's
    assert per_version(files) == {
        1: ["1.changelog"],
        2: ["2.changelog"],
        3: ["3.changelog", "3.zip"],
        4: ["4.changelog"],
    }
    assert snapshot_versions(files) == [3]
    assert list_state_files(tmp_path / "absent") == []


def test_unique_ids_by_version_sees_two_attempts() -> None:
    other = "0e5e107b-ff36-48df-8d51-a48106e8666c"
    files = [
        classify(f"5_{ID}.changelog"),
        classify(f"5_{other}.changelog"),
        classify("SSTs/a.sst"),
    ]
    assert unique_ids_by_version(files) == {5: {ID, other}}


def test_the_lineage_of_a_format_2_changelog_written_by_spark() -> None:
    lineage = read_lineage(DATA / f"format2-5_{ID}.changelog")
    assert lineage == [
        (3, "68b9ef5a-e02c-4c7f-b13a-1b5e446f277b"),
        (4, "d5fad5b5-f33b-426f-ba19-0ac44ab3c255"),
    ]


def test_a_format_1_changelog_has_no_header_and_no_lineage() -> None:
    assert read_lineage(DATA / "format1-5.changelog") == []


def test_changelog_head_reads_the_writer_version() -> None:
    def utf(text: str) -> bytes:
        return struct.pack(">H", len(text)) + text.encode()

    assert changelog_head(utf("v2") + b"\x00\x01") == ("v2", [])
    lineage = '[{"version":3,"checkpointUniqueId":"abc"}]'
    assert changelog_head(utf("v4") + utf(lineage)) == ("v4", [(3, "abc")])
    with pytest.raises(CheckpointError):
        changelog_head(utf("v3") + utf("[{not json"))


def test_lz4_blocks_raw_and_compressed_with_an_overlapping_match() -> None:
    # "ab" then a match 2 back of length 6: "abababab"; a raw block after it; the end mark.
    block = bytes([0x22]) + b"ab" + bytes([2, 0])
    assert decompress_block(block, 8) == b"abababab"
    stream = (
        MAGIC
        + struct.pack("<Biii", 0x20, len(block), 8, 0)
        + block
        + MAGIC
        + struct.pack("<Biii", 0x10, 3, 3, 0)
        + b"xyz"
        + MAGIC
        + struct.pack("<Biii", 0x10, 0, 0, 0)
    )
    assert decompress(stream) == b"ababababxyz"


def test_not_an_lz4_stream_is_a_checkpoint_error() -> None:
    with pytest.raises(CheckpointError, match="not an lz4 block stream"):
        decompress(b"SomethingElse-and-more-bytes-here")


def test_a_spark_checksum_reads_as_its_value_and_the_size_it_covers() -> None:
    from spark_app.checkpoint.state_files import spark_checksum

    written = (
        '{"algorithm":"CRC32C","value":-393683586,"mainFileSize":3763,'
        '"timestampMs":1764150000000,"creator":"x"}'
    )
    assert spark_checksum(written) == (-393683586, 3763)
    assert spark_checksum('{"value": 7}') == (7, None)
    assert spark_checksum("not json") is None
    assert spark_checksum("[1, 2]") is None
    assert spark_checksum('{"value": "x", "mainFileSize": 3}') is None
