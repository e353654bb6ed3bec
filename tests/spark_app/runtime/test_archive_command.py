"""`python -m spark_app class-archive`: the archive written from what a stopped app kept, as
the scenario runner starts it between scenarios."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from spark_app.runtime.class_cache import ClassCache, archive_news, pyspark_jars
from spark_app.runtime.jvm_flags import NO_PERF_FILE
from spark_app.runtime.session import java_binary

JAVA = java_binary()
pytestmark = pytest.mark.skipif(JAVA is None, reason="needs Java")
ROOT = Path(__file__).resolve().parents[3]


def class_archive(cache_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spark_app", "class-archive", "--class-cache-dir", str(cache_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_nothing_to_write_from_is_exit_3_and_one_line(tmp_path: Path) -> None:
    done = class_archive(tmp_path / "cache")
    assert done.returncode == 3, done.stderr
    assert done.stdout.startswith("nothing to write Spark's class archive from yet")


def test_what_a_stopped_app_kept_becomes_the_archive_then_it_is_in_place(tmp_path: Path) -> None:
    assert JAVA is not None
    cache = ClassCache(tmp_path / "cache", JAVA)  # this PySpark's key, as the app's own
    options = cache.java_options(tmp_path / "loaded-classes.txt")
    subprocess.run(
        [JAVA, NO_PERF_FILE, *shlex.split(options), "-cp", str(pyspark_jars()), "-version"],
        check=True,
        capture_output=True,
    )
    writer = cache.start_writing(str(pyspark_jars()), [])
    assert writer is not None
    writer.stop()  # the app stopped: its writer with it
    assert cache.writing() and cache.recipe.exists()

    done = class_archive(cache.archive.parent)

    assert done.returncode == 0, done.stdout + done.stderr
    assert "saved" in [archive_news(line) for line in done.stdout.splitlines()]
    assert not cache.writing() and not cache.recipe.exists() and not cache.kept_list.exists()
    again = class_archive(cache.archive.parent)
    assert again.returncode == 0 and again.stdout.startswith("Spark's class archive is in place")
