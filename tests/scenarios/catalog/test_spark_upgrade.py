"""The rollback's prediction, read from a checkpoint's files as Spark writes them."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from scenarios.catalog.spark_upgrade import CheckpointFormats, predict_rollback


def schema(nullable_key: bool) -> str:
    return json.dumps(
        {
            "type": "struct",
            "fields": [
                {"name": "stream", "type": "integer", "nullable": nullable_key, "metadata": {}}
            ],
        },
        separators=(",", ":"),
    )


def write_utf(text: str) -> bytes:
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def checkpoint(root: Path, offsets_version: str, nullable_key: bool) -> Path:
    """A checkpoint as Spark leaves it: logs with their version line, the state schema file v2
    (writeUTF version, then per schema a chunk count and writeUTF chunks)."""
    for log, text in (
        ("offsets", f"{offsets_version}\n{{}}\n{{}}"),
        ("commits", "v1\n{}"),
        ("state/0/_metadata", "v1\n{}"),
    ):
        folder = root / log
        folder.mkdir(parents=True)
        (folder / ("metadata" if log.startswith("state") else "0")).write_text(text)
    key, value = schema(nullable_key), schema(True)
    body = (
        write_utf("v2")
        + struct.pack(">i", 1)
        + write_utf(key)
        + struct.pack(">i", 2)
        + write_utf(value[:40])
        + write_utf(value[40:])
    )
    schema_file = root / "state" / "0" / "0" / "_metadata" / "schema"
    schema_file.parent.mkdir(parents=True)
    schema_file.write_bytes(body)
    return root


def test_the_formats_are_read_from_the_files(tmp_path: Path) -> None:
    formats = CheckpointFormats.read(checkpoint(tmp_path, "v1", nullable_key=False))
    assert formats.log_versions == {"offsets": "v1", "commits": "v1", "state/0/_metadata": "v1"}
    assert formats.state_schemas == (schema(False), schema(True))  # chunks joined again


def test_the_same_formats_predict_a_resume(tmp_path: Path) -> None:
    a = CheckpointFormats.read(checkpoint(tmp_path / "a", "v1", nullable_key=False))
    b = CheckpointFormats.read(checkpoint(tmp_path / "b", "v1", nullable_key=False))
    assert predict_rollback(a, b)[0] is True


def test_a_newer_log_version_predicts_a_refusal(tmp_path: Path) -> None:
    a = CheckpointFormats.read(checkpoint(tmp_path / "a", "v1", nullable_key=False))
    b = CheckpointFormats.read(checkpoint(tmp_path / "b", "v2", nullable_key=False))
    resumes, why = predict_rollback(a, b)
    assert resumes is False and "offsets v2 (A writes v1)" in why


def test_a_stored_non_null_column_read_as_nullable_predicts_a_refusal(tmp_path: Path) -> None:
    """StateSchemaCompatibilityChecker.schemasCompatible(stored, new) is
    equalsIgnoreNameAndCompatibleNullability(new, stored): a stored column may be nullable where
    the reader declares it non-null, not the other way round."""
    stored = CheckpointFormats.read(checkpoint(tmp_path / "stored", "v1", nullable_key=False))
    declared = CheckpointFormats.read(checkpoint(tmp_path / "declared", "v1", nullable_key=True))
    resumes, why = predict_rollback(declared, stored)
    assert resumes is False and "stream not nullable" in why
    assert predict_rollback(stored, declared)[0] is True
