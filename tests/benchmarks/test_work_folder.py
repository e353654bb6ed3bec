"""A benchmark's working folder: the one given is kept, a temporary one goes, on a failure too."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from benchmarks.work_folder import work_folder


def test_a_given_folder_is_made_and_kept(tmp_path: Path) -> None:
    with work_folder(tmp_path / "bench", "x-") as work:
        (work / "kafka-data").mkdir()
    assert (tmp_path / "bench" / "kafka-data").is_dir()


def test_a_temporary_folder_goes_at_the_end_and_on_a_failure() -> None:
    with work_folder(None, "work-folder-test-") as work:
        (work / "broker.out").write_text("written")
        assert work.parent == Path(tempfile.gettempdir())
    assert not work.exists()
    with pytest.raises(RuntimeError):
        with work_folder(None, "work-folder-test-") as failed:
            raise RuntimeError("a measure failed")
    assert not failed.exists()
