"""A container of ours whose starting process was killed outright is removed; a running one's is not.

Marked `docker`; skips, saying why, when no Docker engine answers.
"""

from __future__ import annotations

import os
import subprocess

import pytest


def _a_dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@pytest.mark.docker
def test_only_a_gone_process_containers_are_removed(kafka_image: str) -> None:
    import docker.errors

    from kafka_app.container.image import docker_client
    from kafka_app.container.leftovers import CONTAINER_KIND, OURS_LABEL, PID_LABEL, remove_orphans

    client = docker_client()
    made = {}
    try:
        for who, pid in (("killed", _a_dead_pid()), ("running", os.getpid())):
            made[who] = client.containers.create(
                kafka_image,
                entrypoint=["true"],
                labels={OURS_LABEL: CONTAINER_KIND, PID_LABEL: str(pid)},
            )
        removed = remove_orphans(client)
        assert made["killed"].name in removed and made["running"].name not in removed
        left = {c.id for c in client.containers.list(all=True)}
        assert made["killed"].id not in left and made["running"].id in left
    finally:
        for container in made.values():
            try:
                container.remove(force=True)
            except docker.errors.NotFound:  # removed by remove_orphans, as it should be
                pass
