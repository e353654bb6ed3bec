"""The driver JVM's class archive: listed by the app's JVM, written by a background JVM, adopted
only when another JVM can map it, and pruned once nothing can use it."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from spark_app.runtime.class_cache import (
    LEGACY_DAYS,
    ArchiveWriter,
    ClassCache,
    archive_news,
    kill_writers,
    saved_line,
    writing_line,
)
from spark_app.runtime.jvm_flags import NO_PERF_FILE

JAVA = shutil.which("java")
pytestmark = pytest.mark.skipif(JAVA is None, reason="needs a java on PATH")


def run_jvm(options: str, class_path: str) -> None:
    """A JVM that starts and exits, as Spark's driver JVM does, on `class_path` (and, like the
    driver, without a counters file in /tmp)."""
    subprocess.run(
        [JAVA, NO_PERF_FILE, *shlex.split(options), "-cp", class_path, "-version"],
        check=True,
        capture_output=True,
    )


def new_cache(tmp_path: Path, jars_name: str = "jars") -> ClassCache:
    jars = tmp_path / jars_name
    jars.mkdir(exist_ok=True)
    return ClassCache(tmp_path / "cache", JAVA, jars=jars)


def test_a_new_cache_lists_classes_then_writes_the_archive_in_the_background(
    tmp_path: Path,
) -> None:
    cache = new_cache(tmp_path)
    listed = tmp_path / "session" / "loaded-classes.txt"
    listed.parent.mkdir()
    options = cache.java_options(listed)
    assert options == f"-XX:DumpLoadedClassList={listed}"  # nothing written where a learner waits
    run_jvm(options, str(cache.jars))
    assert listed.stat().st_size > 0
    said: list[str] = []

    writer = cache.start_writing(str(cache.jars), ["-Xmx256m"], said.append)
    assert writer is not None
    assert writer.wait(300)

    assert writer.adopted, said
    assert not cache.writing()
    assert f"-XX:SharedArchiveFile={cache.archive}" in cache.java_options(listed)
    assert sorted(p.name for p in cache.archive.parent.iterdir()) == [
        cache.archive.name,
        cache.made_for.name,
    ]
    assert json.loads(cache.made_for.read_text())["jars"] == str(cache.jars)
    assert [archive_news(line) for line in said] == ["writing", "saved"]
    # A JVM on the same class path maps it (-Xshare:on fails when it cannot).
    run_jvm(f"-Xshare:on -XX:SharedArchiveFile={cache.archive} -Xmx256m", str(cache.jars))


def writing(tmp_path: Path) -> tuple[ClassCache, ArchiveWriter]:
    """A new cache whose writer has just started (a JVM listed its classes first)."""
    cache = new_cache(tmp_path)
    run_jvm(cache.java_options(tmp_path / "loaded-classes.txt"), str(cache.jars))
    writer = cache.start_writing(str(cache.jars), [])
    assert writer is not None and writer.process is not None
    return cache, writer


def test_stopping_the_app_kills_its_writer_and_keeps_nothing_it_wrote(tmp_path: Path) -> None:
    cache, writer = writing(tmp_path)

    writer.stop()

    assert writer.process is not None and writer.process.poll() is not None
    assert not writer.adopted
    assert cache.writing()
    assert not list(cache.archive.parent.glob("*.tmp"))


def test_a_writer_stopped_with_its_app_is_resumed_from_what_the_app_kept(tmp_path: Path) -> None:
    """A scenario's app lives seconds: its writer is stopped with it, but the list stays, and
    the next process (the scenario runner's `class-archive`) writes the archive from it."""
    cache, writer = writing(tmp_path)
    writer.stop()
    assert cache.kept_list.stat().st_size > 0
    assert json.loads(cache.recipe.read_text())["class_path"] == str(cache.jars)
    (tmp_path / "loaded-classes.txt").unlink()  # the app's session folder is gone with it
    said: list[str] = []

    later = ClassCache(cache.archive.parent, JAVA, jars=cache.jars)
    resumed = later.resume_writing(said.append)

    assert resumed is not None and resumed.wait(300) and resumed.adopted, said
    assert not later.writing()
    assert sorted(p.name for p in cache.archive.parent.iterdir()) == [
        cache.archive.name,
        cache.made_for.name,
    ]
    assert [archive_news(line) for line in said] == ["writing", "saved"]


def test_nothing_is_resumed_without_a_kept_list_or_once_the_archive_exists(tmp_path: Path) -> None:
    cache = new_cache(tmp_path)
    assert cache.resume_writing() is None  # no app has listed anything
    (tmp_path / "second").mkdir()
    cache, writer = writing(tmp_path / "second")
    writer.stop()
    cache.archive.write_bytes(b"written meanwhile by another clone's run")
    assert cache.resume_writing() is None


def test_what_was_kept_goes_once_its_archive_exists_or_its_jars_are_gone(tmp_path: Path) -> None:
    cache, writer = writing(tmp_path)
    writer.stop()
    gone_jars = tmp_path / "deleted-clone-jars"
    gone_jars.mkdir()
    other = ClassCache(cache.archive.parent, JAVA, jars=gone_jars)
    run_jvm(other.java_options(tmp_path / "other-classes.txt"), str(gone_jars))
    other_writer = other.start_writing(str(gone_jars), [])
    assert other_writer is not None
    other_writer.stop()
    gone_jars.rmdir()
    assert other.recipe.exists() and cache.recipe.exists()

    cache.java_options(tmp_path / "list")  # every start prunes

    assert not other.recipe.exists() and not other.kept_list.exists()
    assert cache.recipe.exists() and cache.kept_list.exists()  # still ours to write from
    cache.archive.write_bytes(b"an archive")
    cache.prune()
    assert not cache.recipe.exists() and not cache.kept_list.exists()


def test_a_crash_that_skips_every_clean_up_kills_the_writer_first(tmp_path: Path) -> None:
    """The negative key's os._exit runs no stop(): kill_writers() is what it calls instead."""
    cache, writer = writing(tmp_path)

    kill_writers()

    assert writer.process is not None and writer.process.wait(timeout=10) != 0
    assert writer.wait(timeout=10) and not writer.adopted and cache.writing()


def test_no_writer_without_a_class_list_or_once_the_archive_exists(tmp_path: Path) -> None:
    cache = new_cache(tmp_path)
    assert cache.start_writing(str(cache.jars), []) is None  # java_options() never asked for one
    cache.java_options(tmp_path / "list")
    cache.archive.write_bytes(b"an archive")
    assert cache.start_writing(str(cache.jars), []) is None


def test_a_truncated_archive_is_discarded_not_adopted(tmp_path: Path) -> None:
    # What a writer killed halfway leaves behind; mapping it would crash the next JVM.
    cache = new_cache(tmp_path)
    cache.java_options(tmp_path / "list")
    candidate = cache.archive.with_name(f"{cache.archive.name}.{os.getpid()}.tmp")
    candidate.write_bytes(b"half an archive")

    assert not cache.adopt(str(cache.jars), [])
    assert list(cache.archive.parent.iterdir()) == []
    assert cache.writing()


def test_archives_abandoned_by_dead_writers_are_removed(tmp_path: Path) -> None:
    cache = new_cache(tmp_path)
    cache.archive.parent.mkdir()
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = cache.archive.with_name(f"{cache.archive.name}.{dead.pid}.tmp")
    in_progress = cache.archive.with_name(f"{cache.archive.name}.{os.getppid()}.tmp")
    abandoned.write_bytes(b"half an archive")
    in_progress.write_bytes(b"still being written")

    cache.java_options(tmp_path / "list")

    assert not abandoned.exists()
    assert in_progress.exists()
    # Another live process is writing it: this one does not write a second copy.
    assert cache.start_writing(str(cache.jars), []) is None


def _archive_for(cache: ClassCache, name: str, jars: Path | None, java: str | None) -> Path:
    archive = cache.archive.parent / name
    archive.write_bytes(b"an archive")
    if jars is not None:
        record = {"jars": str(jars), "java": java or str(Path(JAVA).resolve())}
        archive.with_name(name + ".made-for").write_text(json.dumps(record))
    return archive


def test_each_start_deletes_the_archives_nothing_can_use_any_more(tmp_path: Path) -> None:
    cache = new_cache(tmp_path)
    cache.archive.parent.mkdir()
    other_clone = tmp_path / "other-clone-jars"
    other_clone.mkdir()
    kept = {
        "another clone's": _archive_for(cache, "spark-4.2.0-aaaa.jsa", other_clone, None),
        "an old version's, recent": _archive_for(cache, "spark-4.1.0-bbbb.jsa", None, None),
    }
    deleted = {
        "a deleted clone's": _archive_for(cache, "spark-4.2.0-cccc.jsa", tmp_path / "gone", None),
        "a removed Java's": _archive_for(cache, "spark-4.2.0-dddd.jsa", other_clone, "/no/java"),
        "this clone's before an upgrade": _archive_for(
            cache, "spark-4.1.0-eeee.jsa", cache.jars, None
        ),
        "an old version's, a month old": _archive_for(cache, "spark-4.0.0-ffff.jsa", None, None),
    }
    month_ago = time.time() - (LEGACY_DAYS + 1) * 86400
    os.utime(deleted["an old version's, a month old"], (month_ago, month_ago))

    cache.java_options(tmp_path / "list")

    assert {what: path.exists() for what, path in kept.items()} == dict.fromkeys(kept, True)
    assert {what: path.exists() for what, path in deleted.items()} == dict.fromkeys(deleted, False)
    assert not list(cache.archive.parent.glob("spark-4.2.0-cccc.jsa*"))  # its record went too


def test_this_clones_archive_from_the_previous_version_is_kept_and_claimed(tmp_path: Path) -> None:
    cache = new_cache(tmp_path)
    cache.archive.parent.mkdir()
    cache.archive.write_bytes(b"written at a clean stop by the previous version")
    month_ago = time.time() - (LEGACY_DAYS + 1) * 86400
    os.utime(cache.archive, (month_ago, month_ago))

    assert "-XX:SharedArchiveFile=" in cache.java_options(tmp_path / "list")

    assert cache.archive.exists()
    assert json.loads(cache.made_for.read_text())["jars"] == str(cache.jars)


def test_an_unwritable_folder_means_no_archive_rather_than_no_start(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = ClassCache(blocker / "cache", JAVA, jars=tmp_path)
    assert cache.java_options(tmp_path / "list") == ""
    assert cache.start_writing(str(tmp_path), []) is None


def test_the_archive_lines_the_app_prints_read_back_as_what_happened() -> None:
    archive = Path("/home/me/.cache/checkpoint-experience/spark-4.2.0-0123456789abcdef.jsa")
    assert archive_news(writing_line(archive, 4242)) == "writing"
    assert archive_news(saved_line(archive, 61.4)) == "saved"
    assert archive_news("batch 3: Experience-0 [3, 4) rows=1 count=4 took 50 ms") is None
