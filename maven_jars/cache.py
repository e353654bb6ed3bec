"""The jar cache on disk: one folder per entry, complete only when its manifest exists.

Layout under `cache_root()` (`$CHECKPOINT_EXPERIENCE_CACHE`, else
`$XDG_CACHE_HOME/checkpoint-experience`, else `~/.cache/checkpoint-experience`):

    jars/<name>/*.jar            the jars of one entry
    jars/<name>/manifest.json    written last (temp file + rename): the entry is complete
    ivy-cache/                   Ivy's download cache, shared by every entry

A folder without a manifest, or whose jars do not match it or are not readable zips, is a
crash's leftover or damaged: `load_entry` returns None and the caller fetches it again.

Usage: `jars = load_entry(entry_dir("kafka-4.1.2"), coordinates)` (None: fetch it).
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "MANIFEST",
    "cache_root",
    "entry_dir",
    "load_entry",
    "write_manifest",
    "check_jar",
    "ends_like_a_zip",
]

MANIFEST = "manifest.json"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def cache_root() -> Path:
    """The project's cache folder (not created here)."""
    override = os.environ.get("CHECKPOINT_EXPERIENCE_CACHE")
    if override:
        return Path(override)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "checkpoint-experience"


def entry_dir(name: str) -> Path:
    """Folder of the entry `name`; the name becomes a folder, so only a plain name is accepted."""
    if not _NAME.match(name) or name.endswith((".tmp", ".lock")):
        raise ValueError(f"cache entry name {name!r} must be letters, digits, '.', '_' or '-'")
    return cache_root() / "jars" / name


def check_jar(path: Path, *, deep: bool = False) -> str | None:
    """None when `path` is a readable zip; else what is wrong with it, in a few words.

    Opening a zip reads its central directory at the end of the file, so a truncated download
    fails here; `deep` also checks every member's CRC (done once, right after a fetch).
    """
    try:
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip() if deep else None
    except (OSError, zipfile.BadZipFile) as error:
        return f"{path.name} is not a readable jar ({error})"
    return f"{path.name} has a damaged member {bad}" if bad else None


# A zip ends with its end-of-central-directory record (22 bytes and a comment of up to 64 KiB).
_ZIP_END = b"PK\x05\x06"
_ZIP_END_SPAN = 22 + 65_535


def ends_like_a_zip(path: Path) -> bool:
    """True when the file's tail holds a zip's end record: a download cut short, or a file
    overwritten with other bytes, does not. Reads at most 64 KiB: the check every start makes,
    where opening the 14 jars of an entry as zips cost a quarter of a second."""
    try:
        with path.open("rb") as jar:
            jar.seek(max(0, path.stat().st_size - _ZIP_END_SPAN))
            return _ZIP_END in jar.read()
    except OSError:
        return False


def load_entry(folder: Path, coordinates: Sequence[str]) -> list[Path] | None:
    """The entry's jars if it is complete, was made for these coordinates and its jars are intact."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        listed = {item["file"]: int(item["size"]) for item in manifest["jars"]}
        made_for = list(manifest["coordinates"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no manifest yet (or a damaged one): not a complete entry
    if made_for != list(coordinates) or not listed:
        return None
    jars = [folder / file for file in sorted(listed)]
    for jar in jars:
        # Every member's CRC was checked once, after the fetch (resolve.py); here the size
        # and the end record catch what can happen to a file since.
        if not jar.is_file() or jar.stat().st_size != listed[jar.name] or not ends_like_a_zip(jar):
            return None
    return jars


def write_manifest(folder: Path, coordinates: Sequence[str], jars: Sequence[Path]) -> None:
    """Mark `folder` complete; the rename makes a half-written manifest impossible."""
    manifest = {
        "coordinates": list(coordinates),
        "jars": [{"file": jar.name, "size": jar.stat().st_size} for jar in sorted(jars)],
    }
    temporary = folder / f"{MANIFEST}.tmp"
    temporary.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, folder / MANIFEST)
