"""`resolve_jars`: the cache's entry when it is complete, else one Ivy fetch that completes it.

A lock file per entry makes a second process (a parallel test, the other app) wait for the
first fetch and then read its manifest instead of fetching the same jars again.

Usage: `jars = resolve_jars(["org.apache.kafka:kafka_2.13:4.1.2"], name="kafka-4.1.2")`.
"""

from __future__ import annotations

import fcntl
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from maven_jars.cache import cache_root, check_jar, entry_dir, load_entry, write_manifest
from maven_jars.errors import JarFetchError
from maven_jars.ivy import parse, run_ivy
from maven_jars.progress import FetchProgress

__all__ = ["resolve_jars"]


def resolve_jars(coordinates: Sequence[str], *, name: str, progress: bool = True) -> list[Path]:
    """The jars of `coordinates` and all their runtime dependencies, fetched once into the cache.

    `name` names the cache entry (e.g. "kafka-4.1.2"); a complete entry is read from its manifest
    without starting anything. Raises JarFetchError (one line) when the jars cannot be had,
    ValueError for a malformed coordinate or name.
    """
    if not coordinates:
        raise ValueError("resolve_jars needs at least one coordinate")
    for coordinate in coordinates:
        parse(coordinate)
    folder = entry_dir(name)
    jars = load_entry(folder, coordinates)
    if jars is not None:
        return jars
    folder.parent.mkdir(parents=True, exist_ok=True)
    with _locked(folder.with_name(f"{name}.lock")):
        jars = load_entry(folder, coordinates)  # another process may have fetched it meanwhile
        return jars if jars is not None else _fetch(coordinates, name, folder, progress)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes, also on a crash
        yield


def _fetch(coordinates: Sequence[str], name: str, folder: Path, progress: bool) -> list[Path]:
    """Fetch into `<name>.tmp`, check every jar, write the manifest, then move it into place."""
    work = folder.with_name(f"{name}.tmp")
    shutil.rmtree(work, ignore_errors=True)  # a crashed fetch's leftovers
    retrieve = work / "jars"
    retrieve.mkdir(parents=True)
    ivy_cache = cache_root() / "ivy-cache"
    try:
        with FetchProgress(name, ivy_cache, enabled=progress) as shown:
            run_ivy(
                coordinates,
                retrieve,
                ivy_cache,
                work / "ivy.log",
                on_poll=shown.poll,
                module=f"fetch-{name}",
            )
        jars = sorted(retrieve.glob("*.jar"))
        _check_all(jars, coordinates, ivy_cache)
        write_manifest(retrieve, coordinates, jars)
        shutil.rmtree(folder, ignore_errors=True)  # an incomplete or damaged entry
        retrieve.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [folder / jar.name for jar in jars]


def _check_all(jars: Sequence[Path], coordinates: Sequence[str], ivy_cache: Path) -> None:
    if not jars:
        raise JarFetchError(
            ", ".join(coordinates),
            "Ivy resolved them but copied no jar",
            "check the coordinates name jar artifacts",
        )
    for jar in jars:
        problem = check_jar(jar, deep=True)
        if problem:
            # The download cache holds the damaged file too: drop it so the next try fetches it.
            for cached in ivy_cache.rglob(jar.name):
                cached.unlink(missing_ok=True)
            raise JarFetchError(
                ", ".join(coordinates), problem, "run the command again to fetch it anew"
            )
