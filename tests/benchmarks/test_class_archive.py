"""A benchmark times restarts only once Spark's class archive is in place, and says whether its
first start had it (benchmarks/class_archive.py). Run against the real `python -m spark_app
class-archive` in an empty cache folder, where no app has listed its classes."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from benchmarks import class_archive
from benchmarks.class_archive import ArchiveNote, archive_in_place, wait_for_archive
from spark_app.runtime.class_cache import ClassCache
from spark_app.runtime.session import java_binary


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClassCache:
    """An empty cache folder, for this process and the commands it starts."""
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    return ClassCache(tmp_path / "cache", java_binary() or "java")


def _write_archive_after(cache: ClassCache, seconds: float) -> threading.Thread:
    """What the app's own writer does at its end: the archive appears under its name."""

    def write() -> None:
        time.sleep(seconds)
        cache.archive.parent.mkdir(parents=True, exist_ok=True)
        cache.archive.write_bytes(b"archive")

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_the_first_start_is_said_to_have_run_without_the_archive_where_there_was_none(
    cache: ClassCache,
) -> None:
    assert not archive_in_place()
    note = ArchiveNote.now()
    assert "the run's first start, which ran without it" in note.footer()
    cache.archive.parent.mkdir(parents=True)
    cache.archive.write_bytes(b"archive")
    assert archive_in_place()
    assert ArchiveNote.now().footer() == "Spark's class archive: in place from the first start on"


def test_an_archive_in_place_needs_no_wait_and_no_word(cache: ClassCache) -> None:
    cache.archive.parent.mkdir(parents=True)
    cache.archive.write_bytes(b"archive")
    said: list[str] = []
    wait_for_archive(timeout_sec=0.0, say=said.append)
    assert said == []


def test_the_wait_ends_when_the_apps_writer_has_written_the_archive(cache: ClassCache) -> None:
    said: list[str] = []
    writer = _write_archive_after(cache, 3.0)
    wait_for_archive(timeout_sec=120.0, say=said.append)
    writer.join()
    assert archive_in_place()
    assert said and said[0].startswith(
        "waiting for Spark's class archive, written once per machine"
    )


def test_no_archive_in_time_says_what_to_run(cache: ClassCache) -> None:
    said: list[str] = []
    with pytest.raises(TimeoutError, match=r"run `uv run python -m spark_app class-archive`"):
        wait_for_archive(timeout_sec=1.0, say=said.append)
    assert len(said) >= 1


def test_while_the_apps_writer_is_at_work_the_command_is_not_run(
    cache: ClassCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = subprocess.Popen(["sleep", "30"])  # a live process that claimed the archive
    try:
        cache.archive.parent.mkdir(parents=True)
        cache.archive.with_name(f"{cache.archive.name}.{writer.pid}.tmp").touch()
        commands: list[object] = []
        monkeypatch.setattr(
            class_archive.subprocess, "run", lambda *args, **kwargs: commands.append(args)
        )
        written = _write_archive_after(cache, 3.0)
        wait_for_archive(timeout_sec=120.0, say=lambda _: None)
        written.join()
        assert commands == []
    finally:
        writer.kill()
        writer.wait()
