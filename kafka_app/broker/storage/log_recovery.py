"""What a start checks in a partition folder: its segment files and its checkpoint files.

Segments are opened oldest first, rebuilding each one's index; the part written since the last
flush is CRC-checked after an unclean stop. Empty segment files beside others (a roll cut short
by a full disk or a crash) are dropped, and a segment starting inside the one before it stops
the start rather than hand the same offsets out twice.

Usage: `segments = recover_segments(folder, recovery_point, producers.record)`
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path

from kafka_app.broker.errors import StorageCorrupt
from kafka_app.broker.storage.record_batch import BatchHeader
from kafka_app.broker.storage.segment import LOG_SUFFIX, Segment

__all__ = ["recover_segments", "read_checkpoint"]

_log = logging.getLogger(__name__)

_SEGMENT_NAME = re.compile(r"[0-9]{20}" + re.escape(LOG_SUFFIX))


def recover_segments(
    folder: Path, recovery_point: int | None, visit: Callable[[BatchHeader], None]
) -> list[Segment]:
    """Open segments oldest first; CRC-check those at or past `recovery_point` (None: none).

    Only the active segment's tail may be cut (a torn last write); damage anywhere else stops
    the start with StorageCorrupt rather than deleting the acknowledged records after it.
    """
    paths = sorted(
        path for path in folder.glob(f"*{LOG_SUFFIX}") if _SEGMENT_NAME.fullmatch(path.name)
    )
    paths = _without_empty_leftovers(paths)
    segments: list[Segment] = []
    for position, path in enumerate(paths):
        last = position + 1 == len(paths)
        next_base = None if last else int(paths[position + 1].name[: -len(LOG_SUFFIX)])
        verify = recovery_point is not None and (next_base is None or next_base > recovery_point)
        segments.append(Segment.recover(path, verify=verify, may_truncate=last, visit=visit))
        if len(segments) > 1 and segments[-1].base_offset < segments[-2].next_offset:
            for segment in segments:
                segment.close()
            raise StorageCorrupt(
                f"{path} starts at offset {segments[-1].base_offset}, inside {segments[-2].path.name} "
                f"(which ends at {segments[-2].next_offset - 1}): those offsets were handed out "
                f"twice; move one of the two files aside"
            )
    return segments


def _without_empty_leftovers(paths: list[Path]) -> list[Path]:
    """Drop 0-byte segment files when the partition has others.

    A roll cut short by a full disk or a crash leaves one; counted as a segment it would claim
    offsets the segment before it holds (fetches from there would skip them, and the log end
    offset would go back). It holds no record, so nothing is lost; the newest one stays when
    every file is empty, since its name keeps the log end offset.
    """
    if len(paths) < 2:
        return paths
    kept = [path for path in paths if path.stat().st_size > 0] or paths[-1:]
    for path in paths:
        if path not in kept:
            _log.warning(
                "removing %s: an empty segment beside others, left by a roll that did not finish",
                path,
            )
            path.unlink()
    return kept


def read_checkpoint(path: Path) -> int | None:
    try:
        return int(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        return None
    except ValueError:
        _log.warning("ignoring unreadable %s; the log starts at its first segment", path)
        return None
