"""The standalone cluster's daemons start as the app's JVMs do: C1 only, no counters file in
/tmp, and the app's class archive once one exists (checked without starting a JVM)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.runtime.class_cache import ClassCache, default_cache_dir
from spark_app.runtime.cluster import _daemon_java_options
from spark_app.runtime.session import java_binary


def test_the_daemons_map_the_apps_class_archive_once_it_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path))
    assert _daemon_java_options().split() == ["-XX:TieredStopAtLevel=1", "-XX:-UsePerfData"]
    archive = ClassCache(default_cache_dir(), java_binary() or "java").archive
    assert archive.parent == tmp_path
    archive.write_bytes(b"written by the app's first start")
    assert f"-XX:SharedArchiveFile={archive}" in _daemon_java_options().split()
