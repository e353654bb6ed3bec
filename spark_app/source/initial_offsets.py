"""`sources/0/0`: where a query started, written once, as Spark's Kafka connector writes it.

When a new query's first batch (batch 0) crashes, Spark replays it from the source's initial
offset. The connector does not resolve `startingOffsets` again at that moment: the first time,
it wrote the resolved offsets to `<checkpoint>/sources/0/0`, and every later call reads them
back (`KafkaMicroBatchStream.getOrCreateInitialPartitionOffsets`). Without that file a replay
of batch 0 could read another range than the first attempt (`latest` has moved on, or
retention moved `earliest`), and the exactly-once sink relies on a replay reading exactly the
same range.

Spark does not write this file for Python sources, so ours does, byte for byte like the
connector (`KafkaSourceInitialOffsetWriter`): a NUL byte, `v1`, a newline, then compact JSON,
no newline at the end; beside it `.0.crc`, the checksum Hadoop's local file system keeps for
every file Spark writes. The file is created once and never overwritten.

Usage:
    log = InitialOffsetsFile(Path("checkpoints"))
    offsets = log.get_or_create(lambda: {TopicPartition("Experience", 0): 0})
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from spark_app.errors import CheckpointError
from spark_app.offsets import Offsets, offsets_to_text, parse_offsets
from spark_app.runtime.atomic_file import create_once, write_atomically

__all__ = ["InitialOffsetsFile", "hadoop_crc", "VERSION"]

VERSION = 1
_CRC_CHUNK = 512


def hadoop_crc(data: bytes) -> bytes:
    """The bytes of Hadoop's `.name.crc`: magic `crc\\0`, chunk size, a CRC-32 per 512 bytes."""
    sums = b"".join(
        struct.pack(">I", zlib.crc32(data[i : i + _CRC_CHUNK]))
        for i in range(0, len(data), _CRC_CHUNK)
    )
    return b"crc\x00" + struct.pack(">i", _CRC_CHUNK) + sums


def serialize(offsets: Offsets) -> bytes:
    """KafkaSourceInitialOffsetWriter.serialize: NUL (SPARK-19517), `v1\\n`, compact JSON."""
    return b"\x00" + f"v{VERSION}\n".encode() + offsets_to_text(offsets).encode()


def deserialize(data: bytes, path: Path) -> Offsets:
    """KafkaSourceInitialOffsetWriter.deserialize, with Spark's errors for a bad file."""
    content = data[1:].decode("utf-8")  # the first byte is the NUL, whatever it holds
    if not content:
        raise _unusable(path, "java.lang.IllegalArgumentException: requirement failed")
    if content.startswith("v"):
        if "\n" not in content:
            raise _unusable(
                path,
                "java.lang.IllegalStateException: Log file was malformed: "
                "failed to detect the log file version line.",
            )
        version_line, content = content.split("\n", 1)
        _validate_version(version_line, path)
    try:
        return parse_offsets(content)
    except (ValueError, json.JSONDecodeError) as err:
        raise _unusable(path, f"the offsets are not readable JSON ({err})") from err


def _validate_version(text: str, path: Path) -> None:
    """HDFSMetadataLog.validateVersion."""
    malformed = (
        f"java.lang.IllegalStateException: Log file was malformed: failed to read "
        f"correct log version from {text}."
    )
    try:
        version = int(text[1:])
    except ValueError:
        raise _unusable(path, malformed) from None
    if version > VERSION:
        raise _unusable(
            path,
            f"java.lang.IllegalStateException: UnsupportedLogVersion: maximum "
            f"supported log version is v{VERSION}, but encountered v{version}. "
            f"The log file was produced by a newer version of Spark and cannot "
            f"be read by this version. Please upgrade.",
        )
    if version <= 0:
        raise _unusable(path, malformed)


def _unusable(path: Path, reason: str) -> CheckpointError:
    return CheckpointError(
        f"the source's initial offsets in {path} cannot be read: {reason}. "
        f"Run the Spark version that wrote it, or delete the checkpoint folder "
        f"to start over (the count restarts)."
    )


class InitialOffsetsFile:
    """`<checkpoint>/sources/<index>/0`, the HDFSMetadataLog entry of batch 0."""

    def __init__(self, checkpoint: Path, source_index: int = 0) -> None:
        self.path = checkpoint / "sources" / str(source_index) / "0"

    def get(self) -> Offsets | None:
        """The stored initial offsets, or None before the first start."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        return deserialize(data, self.path)

    def get_or_create(self, resolve: Callable[[], Offsets]) -> tuple[Offsets, bool]:
        """(initial offsets, True if this call resolved and wrote them)."""
        stored = self.get()
        if stored is not None:
            return stored, False
        offsets = resolve()
        if not self._add(serialize(offsets)):
            # Another start wrote it first (HDFSMetadataLog.add keeps the existing entry).
            stored = self.get()
            assert stored is not None
            return stored, False
        return offsets, True

    def _add(self, data: bytes) -> bool:
        """Write atomically; False (and nothing changed) when the entry already exists."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not create_once(self.path, data):  # never overwrite batch 0
            return False
        write_atomically(self.path.with_name(f".{self.path.name}.crc"), hadoop_crc(data))
        return True
