"""The checkpoint folder's size and file count, by sub-folder, measured now and sampled over time.

`measure` walks a checkpoint once: files and bytes under `offsets/`, `commits/`, `state/`,
`sources/` and the rest (the `metadata` file), every file on disk counted, Hadoop's hidden
`.<name>.crc` side files too (they take space and inodes like any other). It also counts what a
user counts with `ls`: the batch entries of `offsets/` and `commits/` (files named by a batch
id) and the state versions of `state/<op>/<part>/` (the distinct versions of its `.delta`,
`.snapshot`, `.zip` and `.changelog` files). Spark deletes files while the walk runs: a file gone
between the listing and its size was deleted, and is not counted.

`CheckpointSampler` measures every `interval` seconds in a thread, keeps the samples with the
phase the scenario is in, and draws them on the timeline's folder panel.

Usage:
    usage = measure(Path("checkpoints"))
    usage.files["offsets"], usage.offsets_entries, usage.state_versions, usage.total_bytes
    with CheckpointSampler(stage.timeline, lambda: app.folders.checkpoints) as sampler:
        sampler.phase = "soak"
        ...
    sampler.samples  # [FolderSample(at, phase, usage), ...]
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

from scenarios.checker.folder_usage import CheckpointUsage, FolderSample
from scenarios.engine.observers.periodic import PeriodicSampler
from scenarios.engine.timeline import Timeline

__all__ = ["PARTS", "CheckpointSampler", "listing", "measure"]

# The sub-folders a learner looks at, in the order the picture lists them; anything else at the
# top (the `metadata` file, `offsets`' temporary files) is "other".
PARTS = ("offsets", "commits", "state", "sources", "other")
_VERSIONED = re.compile(r"^(\d+)(?:_[0-9a-f-]{36})?\.(delta|snapshot|zip|changelog)$")


def measure(checkpoint: Path) -> CheckpointUsage:
    """Walk `checkpoint` once (an empty usage when it does not exist yet)."""
    files = dict.fromkeys(PARTS, 0)
    sizes = dict.fromkeys(PARTS, 0)
    batch_ids: dict[str, list[int]] = {"offsets": [], "commits": []}
    versions: dict[str, set[int]] = {}
    # os.walk skips a folder deleted under it (onerror=None): Spark purges while we walk.
    for folder, _, names in os.walk(checkpoint):
        relative = Path(folder).relative_to(checkpoint).parts
        part = relative[0] if relative and relative[0] in PARTS else "other"
        for name in names:
            try:
                size = os.stat(os.path.join(folder, name)).st_size
            except FileNotFoundError:
                continue  # deleted between the listing and now: no longer there
            files[part] += 1
            sizes[part] += size
            if part in batch_ids and len(relative) == 1 and name.isdigit():
                batch_ids[part].append(int(name))
            elif part == "state" and len(relative) == 3:  # state/<op>/<partition>/<file>
                match = _VERSIONED.match(name)
                if match:
                    versions.setdefault(folder, set()).add(int(match.group(1)))
    offsets = batch_ids["offsets"]
    widest = max(versions.values(), key=len, default=set())
    return CheckpointUsage(
        files=files,
        bytes=sizes,
        offsets_entries=len(offsets),
        commits_entries=len(batch_ids["commits"]),
        oldest_batch=min(offsets, default=None),
        newest_batch=max(offsets, default=None),
        state_versions=len(widest),
        oldest_state_version=min(widest, default=None),
    )


def listing(checkpoint: Path) -> dict[str, int]:
    """Every file under `checkpoint` (its path there, posix) with its size: two listings
    compared say whether anything was written, deleted or rewritten in between."""
    found = {}
    for folder, _, names in os.walk(checkpoint):
        for name in names:
            path = os.path.join(folder, name)
            try:
                found[Path(path).relative_to(checkpoint).as_posix()] = os.stat(path).st_size
            except FileNotFoundError:
                continue
    return found


class CheckpointSampler(PeriodicSampler):
    """Measures a checkpoint into a list and the timeline until stopped; start/stop idempotent.

    `checkpoint` is called at each sample, so the scenario may point it at another folder;
    `phase` labels the samples that follow (the checks pick their samples by phase).
    """

    def __init__(
        self, timeline: Timeline, checkpoint: Callable[[], Path], interval: float = 1.0
    ) -> None:
        super().__init__(interval, "checkpoint-sampler")
        self.timeline = timeline
        self.checkpoint = checkpoint
        self.phase = ""
        self.samples: list[FolderSample] = []
        self._lock = threading.Lock()

    def sample(self) -> FolderSample:
        """Measure once now (the thread does it every interval; a scenario may add one)."""
        usage = measure(self.checkpoint())
        at = self.timeline.now()
        self.timeline.folder(usage.files, usage.total_bytes)
        taken = FolderSample(at, self.phase, usage)
        with self._lock:
            self.samples.append(taken)
        return taken

    def of(self, phase: str) -> list[FolderSample]:
        """The samples taken in `phase`, in time order."""
        with self._lock:
            return [s for s in self.samples if s.phase == phase]
