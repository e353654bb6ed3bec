"""The files of one state store partition (`state/<op>/<part>/`), told apart by name, and the
lineage a format-2 changelog carries. No Spark: names and a changelog's first bytes.

What each store writes for state version v (= batch v - 1):
- HDFS: `<v>.delta` every batch, `<v>.snapshot` now and then, from background maintenance;
- RocksDB: `<v>.zip` every batch (the database's small files, with a list of its SSTs) and new
  `SSTs/<n>-<uuid>.sst` data files, shared between versions;
- RocksDB with changelog checkpointing: `<v>.changelog` every batch, `<v>.zip` only every
  minDeltasForSnapshot versions;
- checkpoint format 2 names the attempt too, `<v>_<uuid>.zip` / `<v>_<uuid>.changelog`, with
  Spark's own checksum `<file>.crc` beside each (Hadoop's hidden `.<file>.crc` are skipped).

Usage:
    files = list_state_files(Path("checkpoints/state/0/0"))
    per_version(files)        # {1: ["1.delta"], 2: ["2.delta"], …}
    read_lineage(Path("checkpoints/state/0/0/5_<id>.changelog"))  # [(3, "<id>"), (4, "<id>")]
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from spark_app.checkpoint.lz4_block import decompress
from spark_app.errors import CheckpointError

__all__ = [
    "StateFile",
    "classify",
    "spark_checksum",
    "list_state_files",
    "per_version",
    "snapshot_versions",
    "unique_ids_by_version",
    "changelog_head",
    "read_lineage",
    "SNAPSHOT_KINDS",
]

_VERSIONED = re.compile(r"^(\d+)(?:_([0-9a-f-]{36}))?\.(delta|snapshot|zip|changelog)$")
SNAPSHOT_KINDS = ("snapshot", "zip")


@dataclass(frozen=True)
class StateFile:
    """One file of a partition folder: its path there, its kind, its version and attempt id."""

    name: str  # relative to the partition folder, e.g. "SSTs/000008-<uuid>.sst"
    kind: str  # delta | snapshot | zip | changelog | sst | checksum | metadata | other
    version: int | None = None
    unique_id: str | None = None  # checkpoint format 2: the attempt that wrote it


def classify(name: str) -> StateFile:
    """What a file of a partition folder is, from its path relative to that folder."""
    base = name.rsplit("/", 1)[-1]
    match = _VERSIONED.match(base)
    if match and "/" not in name:
        return StateFile(name, match.group(3), int(match.group(1)), match.group(2))
    if name.startswith("SSTs/") and base.endswith(".sst"):
        return StateFile(name, "sst")
    if base.endswith(".crc"):  # Spark's checksum of the file it names (format 2)
        return StateFile(name, "checksum")
    if name.startswith("_metadata/"):
        return StateFile(name, "metadata")
    return StateFile(name, "other")


def spark_checksum(text: str) -> tuple[int, int | None] | None:
    """(value, size of the file it covers, None when absent) of a Spark `.crc` beside a state
    file (JSON: algorithm, a CRC32C as a signed int, mainFileSize, timestampMs, creator); None
    for text that is not one."""
    try:
        found = json.loads(text)
        value, size = found.get("value"), found.get("mainFileSize")
    except (ValueError, AttributeError):
        return None
    if not isinstance(value, int):
        return None
    return value, size if isinstance(size, int) else None


def list_state_files(partition_dir: Path) -> list[StateFile]:
    """Every file under a partition folder but Hadoop's hidden `.<name>.crc`, sorted by name."""
    if not partition_dir.is_dir():
        return []
    names = (
        p.relative_to(partition_dir).as_posix()
        for p in partition_dir.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    )
    return [classify(name) for name in sorted(names)]


def per_version(files: list[StateFile]) -> dict[int, list[str]]:
    """The versioned files by state version, in version order (SSTs have no version)."""
    found: dict[int, list[str]] = {}
    for f in files:
        if f.version is not None:
            found.setdefault(f.version, []).append(f.name)
    return dict(sorted(found.items()))


def snapshot_versions(files: list[StateFile]) -> list[int]:
    """The versions with a full snapshot (`.snapshot` or `.zip`), ascending, each once."""
    return sorted({f.version for f in files if f.kind in SNAPSHOT_KINDS and f.version is not None})


def unique_ids_by_version(files: list[StateFile]) -> dict[int, set[str]]:
    """Format 2: the attempt ids found on disk for each version."""
    found: dict[int, set[str]] = {}
    for f in files:
        if f.version is not None and f.unique_id is not None:
            found.setdefault(f.version, set()).add(f.unique_id)
    return dict(sorted(found.items()))


def changelog_head(data: bytes) -> tuple[str, list[tuple[int, str]]]:
    """(writer version, lineage) of a decompressed changelog's first bytes.

    Writers v2 and later start with their version as a Java `writeUTF` string (two length
    bytes, then the text); v3 and v4 (checkpoint format 2) follow it with the lineage, a JSON
    list of `{"version", "checkpointUniqueId"}` from the last snapshot to the version before
    this one. A v1 changelog has no header: its records start at once.
    """
    first = _utf(data, 0)
    if first is None or not re.fullmatch(r"v\d+", first[0]):
        return "v1", []
    version, at = first
    if version not in ("v3", "v4"):
        return version, []
    second = _utf(data, at)
    if second is None:
        raise CheckpointError(f"a {version} changelog cut short before its lineage")
    try:
        entries = json.loads(second[0])
    except json.JSONDecodeError as err:
        raise CheckpointError(
            f"a {version} changelog whose lineage is not JSON: {second[0][:60]!r}"
        ) from err
    return version, [(int(e["version"]), str(e["checkpointUniqueId"])) for e in entries]


def _utf(data: bytes, at: int) -> tuple[str, int] | None:
    """A Java `writeUTF` string at `at` (ASCII here), and where the next field starts."""
    if at + 2 > len(data):
        return None
    (length,) = struct.unpack_from(">H", data, at)
    end = at + 2 + length
    if end > len(data):
        return None
    return data[at + 2 : end].decode("utf-8", errors="replace"), end


def read_lineage(changelog: Path) -> list[tuple[int, str]]:
    """The lineage (version, attempt id) a format-2 changelog names; [] under format 1."""
    # The header is in the first block; 64 KiB covers a lineage of hundreds of versions.
    return changelog_head(decompress(changelog.read_bytes(), limit=64 * 1024))[1]
