"""What a process killed outright (kill -9, a closed CI job) left of ours, and its removal.

A container of ours started through testcontainers carries the label `checkpoint-experience`
= `kafka-container` and the id of the process that started it; a build's temporary files in the
cache are named for theirs. A leftover is one whose process is gone: removing only those never
touches what another run on the same machine is using. (Ryuk, testcontainers' own reaper, is an
image from Docker Hub; see container.py.)

Usage:
    remove_orphans(docker.from_env())      # KafkaContainer.start does this first
"""

from __future__ import annotations

import os

__all__ = ["OURS_LABEL", "CONTAINER_KIND", "PID_LABEL", "process_alive", "remove_orphans"]

# On our images (and so on every container of them) and on the containers we start.
OURS_LABEL = "checkpoint-experience"
CONTAINER_KIND = "kafka-container"
PID_LABEL = f"{OURS_LABEL}.pid"


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_orphans(client: object) -> list[str]:
    """Remove our containers whose starting process is gone; their names."""
    removed = []
    ours = {"label": f"{OURS_LABEL}={CONTAINER_KIND}"}
    for container in client.containers.list(all=True, filters=ours):  # type: ignore[attr-defined]
        pid = container.labels.get(PID_LABEL, "")
        if pid.isdigit() and not process_alive(int(pid)):
            container.remove(force=True, v=True)
            removed.append(container.name)
    return removed
