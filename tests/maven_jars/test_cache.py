"""The jar cache: a complete entry is read without fetching, a damaged one is fetched again.

Ivy is replaced by a fake that writes small real zips, so these run in milliseconds;
test_ivy.py runs the real Ivy.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from maven_jars import JarFetchError, cache_root, resolve_jars
from maven_jars import resolve as resolve_module
from maven_jars.cache import MANIFEST, entry_dir

COORDS = ["org.example:tiny:1.0"]


def fake_jar(path: Path, member: str = "a/B.class") -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, b"\xca\xfe\xba\xbe" * 100)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[Sequence[str]]:
    """Every call of the (fake) Ivy; it retrieves two jars."""
    calls: list[Sequence[str]] = []

    def fake_ivy(
        coordinates: Sequence[str], retrieve_dir: Path, *args: object, **kwargs: object
    ) -> None:
        calls.append(list(coordinates))
        fake_jar(retrieve_dir / "tiny-1.0.jar")
        fake_jar(retrieve_dir / "dep-2.0.jar", "c/D.class")

    monkeypatch.setattr(resolve_module, "run_ivy", fake_ivy)
    return calls


def test_cache_root_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CHECKPOINT_EXPERIENCE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "checkpoint-experience"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == Path.home() / ".cache" / "checkpoint-experience"
    monkeypatch.setenv("CHECKPOINT_EXPERIENCE_CACHE", str(tmp_path / "own"))
    assert cache_root() == tmp_path / "own"


def test_first_call_fetches_and_second_reads_the_manifest(cache: Path, fetches: list) -> None:
    first = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    second = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert [p.name for p in first] == ["dep-2.0.jar", "tiny-1.0.jar"]
    assert first == second and len(fetches) == 1
    assert all(p.parent == cache / "jars" / "tiny-1.0" for p in first)
    manifest = json.loads((cache / "jars" / "tiny-1.0" / MANIFEST).read_text())
    assert manifest["coordinates"] == COORDS
    assert not (cache / "jars" / "tiny-1.0.tmp").exists()


def test_truncated_jar_is_fetched_again(cache: Path, fetches: list) -> None:
    jars = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    data = jars[1].read_bytes()
    jars[1].write_bytes(data[: len(data) // 2])  # a download cut short
    again = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert len(fetches) == 2 and zipfile.ZipFile(again[1]).testzip() is None


def test_same_size_garbage_is_fetched_again(cache: Path, fetches: list) -> None:
    jars = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    jars[0].write_bytes(b"\0" * jars[0].stat().st_size)
    resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert len(fetches) == 2


def test_entry_without_manifest_is_a_crash_leftover(cache: Path, fetches: list) -> None:
    leftover = entry_dir("tiny-1.0")
    leftover.mkdir(parents=True)
    fake_jar(leftover / "stale-0.1.jar")
    jars = resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert len(fetches) == 1 and "stale-0.1.jar" not in {p.name for p in jars}
    assert not (leftover / "stale-0.1.jar").exists()


def test_entry_made_for_other_coordinates_is_fetched_again(cache: Path, fetches: list) -> None:
    resolve_jars(COORDS, name="tiny", progress=False)
    resolve_jars(["org.example:tiny:1.1"], name="tiny", progress=False)
    assert fetches == [COORDS, ["org.example:tiny:1.1"]]


def test_a_fetch_that_fails_leaves_no_entry(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(
        coordinates: Sequence[str], retrieve_dir: Path, *args: object, **kwargs: object
    ) -> None:
        fake_jar(retrieve_dir / "half.jar")
        raise JarFetchError(coordinates[0], "not served by Maven Central", "check the version")

    monkeypatch.setattr(resolve_module, "run_ivy", failing)
    with pytest.raises(JarFetchError, match="cannot fetch org.example:tiny:1.0: not served"):
        resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert not entry_dir("tiny-1.0").exists() and not (cache / "jars" / "tiny-1.0.tmp").exists()


def test_a_damaged_download_is_refused_in_one_line(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def damaged(
        coordinates: Sequence[str], retrieve_dir: Path, *args: object, **kwargs: object
    ) -> None:
        (retrieve_dir / "tiny-1.0.jar").write_bytes(b"PK\3\4 not really")

    monkeypatch.setattr(resolve_module, "run_ivy", damaged)
    with pytest.raises(JarFetchError) as caught:
        resolve_jars(COORDS, name="tiny-1.0", progress=False)
    assert "tiny-1.0.jar is not a readable jar" in str(caught.value) and "\n" not in str(
        caught.value
    )
    assert not entry_dir("tiny-1.0").exists()


@pytest.mark.parametrize("bad", ["org.example:tiny", "a:b:c:d", "a:b:1 0", "a::1"])
def test_malformed_coordinates_are_refused(bad: str, cache: Path, fetches: list) -> None:
    with pytest.raises(ValueError, match="not a Maven coordinate"):
        resolve_jars([bad], name="x", progress=False)
    assert not fetches


def test_entry_names_cannot_leave_the_cache(cache: Path, fetches: list) -> None:
    with pytest.raises(ValueError, match="must be letters"):
        resolve_jars(COORDS, name="../evil", progress=False)


def test_plain_progress_off_a_terminal(
    cache: Path, fetches: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    resolve_jars(COORDS, name="tiny-1.0")
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("fetching tiny-1.0") and lines[-1].startswith("fetched tiny-1.0")
    assert "\x1b[" not in stream.getvalue()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_rich_progress_on_a_terminal(
    cache: Path, fetches: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = _Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    resolve_jars(COORDS, name="tiny-1.0")
    out = stream.getvalue()
    assert "fetched tiny-1.0" in out and "(once; later runs use the cache)" not in out
