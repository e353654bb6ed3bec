"""What one walk of a checkpoint folder found, and a walk placed on the timeline: the records
the checkpoint sampler (scenarios/engine/observers/checkpoint_size.py) writes and
folder_bounds.py judges. Here, with the checker, because the checker is pure and reads only
its own package.

Usage: `CheckpointUsage(files={"offsets": 3}, bytes={"offsets": 900}).total_files`
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CheckpointUsage", "FolderSample"]


@dataclass(frozen=True)
class CheckpointUsage:
    """One walk of a checkpoint folder."""

    files: dict[str, int] = field(default_factory=dict)  # by part, every file on disk
    bytes: dict[str, int] = field(default_factory=dict)
    offsets_entries: int = 0  # offsets/<N>: batches planned and still kept
    commits_entries: int = 0  # commits/<N>
    oldest_batch: int | None = None  # the smallest N in offsets/
    newest_batch: int | None = None
    # The most state versions any partition folder holds (the count has one partition).
    state_versions: int = 0
    oldest_state_version: int | None = None

    @property
    def total_files(self) -> int:
        return sum(self.files.values())

    @property
    def total_bytes(self) -> int:
        return sum(self.bytes.values())

    def to_dict(self) -> dict[str, object]:
        return {
            "files": dict(self.files),
            "bytes": dict(self.bytes),
            "total_files": self.total_files,
            "total_bytes": self.total_bytes,
            "offsets_entries": self.offsets_entries,
            "commits_entries": self.commits_entries,
            "oldest_batch": self.oldest_batch,
            "newest_batch": self.newest_batch,
            "state_versions": self.state_versions,
            "oldest_state_version": self.oldest_state_version,
        }


@dataclass(frozen=True)
class FolderSample:
    at: float  # seconds on the timeline's clock
    phase: str
    usage: CheckpointUsage
