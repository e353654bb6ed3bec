"""The driver JVM's class archive: written by one JVM, adopted only when another can map it."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from spark_app.runtime.class_cache import ClassCache

JAVA = shutil.which("java")
pytestmark = pytest.mark.skipif(JAVA is None, reason="needs a java on PATH")


def run_jvm(options: str) -> None:
    """A JVM that starts and exits, as Spark's driver JVM does at the end of a run."""
    subprocess.run([JAVA, *shlex.split(options), "-version"], check=True, capture_output=True)


def test_a_new_cache_asks_the_jvm_to_write_an_archive_and_then_uses_it(tmp_path: Path) -> None:
    cache = ClassCache(tmp_path / "cache", JAVA)
    assert cache.writing()
    run_jvm(cache.java_options())
    assert cache.writes_at_exit

    assert cache.adopt()
    assert cache.archive.exists()
    assert not cache.writing()
    assert f"-XX:SharedArchiveFile={cache.archive}" in cache.java_options()
    assert list(cache.archive.parent.iterdir()) == [cache.archive]


def test_a_truncated_archive_is_discarded_not_adopted(tmp_path: Path) -> None:
    # What a JVM killed while writing leaves behind; mapping it would crash the next JVM.
    cache = ClassCache(tmp_path, JAVA)
    run_jvm(cache.java_options())
    written = next(tmp_path.glob("*.tmp"))
    written.write_bytes(written.read_bytes()[: written.stat().st_size // 2])

    assert not cache.adopt()
    assert list(tmp_path.iterdir()) == []
    assert cache.writing()


def test_archives_abandoned_by_dead_writers_are_removed(tmp_path: Path) -> None:
    cache = ClassCache(tmp_path, JAVA)
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = tmp_path / f"{cache.archive.name}.{dead.pid}.tmp"
    in_progress = tmp_path / f"{cache.archive.name}.{os.getppid()}.tmp"
    abandoned.write_bytes(b"half an archive")
    in_progress.write_bytes(b"still being written")

    cache.java_options()

    assert not abandoned.exists()
    assert in_progress.exists()


def test_an_unwritable_folder_means_no_archive_rather_than_no_start(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = ClassCache(blocker / "cache", JAVA)
    assert cache.java_options() == ""
    assert not cache.writes_at_exit
    assert not cache.adopt()
