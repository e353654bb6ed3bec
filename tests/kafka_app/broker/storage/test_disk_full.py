"""A full disk: an append fails with KafkaStorageError (the Produce answer is KAFKA_STORAGE_ERROR),
leaves no half batch behind, takes the data folder offline (every later append and read fails the
same way, as on Kafka's failed log dir), and every acknowledged record is there after a restart.

Two ways to fill the disk, each a case: a 256 KiB tmpfs (ENOSPC; needs root to mount, as CI has
on a machine like this one, else skipped), and a child process with RLIMIT_FSIZE (EFBIG), which
runs everywhere. Either way the writer is a separate process, as the broker would be.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from kafka_app.broker.storage.data_dir import Storage
from tests.kafka_app.broker.storage_helpers import decode

REPO = Path(__file__).resolve().parents[4]
LIMIT_BYTES = 256 * 1024

_WRITER = textwrap.dedent("""
    import json, resource, signal, sys
    from pathlib import Path
    from kafka_app.broker.errors import KafkaStorageError
    from kafka_app.broker.storage.data_dir import Storage
    from tests.kafka_app.broker.storage_helpers import batch
    if sys.argv[2] == "rlimit":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write with EFBIG, do not kill us
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[3]), int(sys.argv[3])))
    storage = Storage(Path(sys.argv[1]))
    storage.create_topic("events", 1, {})
    log = storage.partition("events", 0)
    acknowledged, errors = 0, []
    for round_ in range(10_000):
        try:
            log.append(batch([b"%06d" % (acknowledged + i) + b"x" * 900 for i in range(10)]))
            acknowledged += 10
        except KafkaStorageError as error:
            errors.append(str(error))
            if len(errors) == 3:
                break
    on_disk = (Path(sys.argv[1]) / "events-0" / "00000000000000000000.log").stat().st_size
    try:
        log.read(0, 100)
        read_error = None
    except KafkaStorageError as error:
        read_error = str(error)
    print(json.dumps({"acknowledged": acknowledged, "errors": errors, "on_disk": on_disk,
                      "size": log.size_bytes, "read_error": read_error}))
    storage.close()
""")


def _mount_tmpfs(folder: Path) -> bool:
    folder.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        return False
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={LIMIT_BYTES}", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    return result.returncode == 0


@pytest.fixture(params=["tmpfs", "rlimit"])
def small_disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """(data folder, how): somewhere writes fail after about LIMIT_BYTES.

    "tmpfs" is the real thing (ENOSPC) and is skipped where mounting is not allowed; "rlimit"
    runs everywhere.
    """
    folder = tmp_path / "disk"
    if request.param == "rlimit":
        folder.mkdir()
        yield folder, "rlimit"
        return
    if not _mount_tmpfs(folder):
        pytest.skip("cannot mount a tmpfs here (needs root); the rlimit case covers a full disk")
    try:
        yield folder, "tmpfs"
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_fails_appends_cleanly_and_keeps_what_was_acknowledged(
    small_disk: tuple[Path, str],
) -> None:
    folder, mode = small_disk
    result = subprocess.run(
        [sys.executable, "-c", _WRITER, str(folder), mode, str(LIMIT_BYTES)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(report["errors"]) == 3, report  # the disk really filled up
    assert (
        "No space left on device" in report["errors"][0] or "File too large" in report["errors"][0]
    ), report
    assert all("is offline since" in error for error in report["errors"][1:]), report
    assert report["read_error"] and "is offline since" in report["read_error"], report
    assert 0 < report["acknowledged"] and report["on_disk"] == report["size"]  # no half batch
    # The writer may not have managed a clean shutdown: the restart rechecks the log either way.
    with Storage(folder) as storage:
        log = storage.partition("events", 0)
        assert log.high_watermark == report["acknowledged"]
        values = [value[:6] for _, _, value in decode(log.read(0, 1 << 24))]
        assert values == [b"%06d" % i for i in range(report["acknowledged"])]
