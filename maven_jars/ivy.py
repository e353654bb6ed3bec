"""Run the Ivy jar that PySpark ships to resolve Maven coordinates and copy their jars to a folder.

Ivy resolves transitively with Maven's `default` conf (runtime + master), as `spark.jars.packages`
does. Its output goes to a log file; when it fails, `failure_from_log` reads that log and says
which coordinate failed and whether the repository was unreachable or simply lacks it.

Usage: `run_ivy(coordinates, retrieve_dir, ivy_cache, log_file, on_poll=show)`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.sax.saxutils import quoteattr

from maven_jars.errors import JarFetchError
from maven_jars.java import find_java
from maven_jars.jvm import NO_PERF_FILE

__all__ = ["MAVEN_CENTRAL", "find_ivy_jar", "repository", "run_ivy", "failure_from_log", "parse"]

MAVEN_CENTRAL = "https://repo1.maven.org/maven2/"
# Resolving Kafka takes ~25 s here; a stalled connection must not hang a CI run forever.
_TIMEOUT_SEC = 900.0
_UNRESOLVED = re.compile(r"::\s+([^\s#]+)#([^\s;]+);(\S+?): (.+)$", re.M)
_UNREACHABLE = re.compile(
    r"Server access error at url (\S+) \((java\.net\.\w+|javax\.net\.\S+|"
    r"java\.io\.IOException|java\.nio\.\S+)",
    re.M,
)


def repository() -> str:
    """Maven repository root: Maven Central unless `$CHECKPOINT_EXPERIENCE_MAVEN_REPO` names a
    mirror (like Spark's `DEFAULT_ARTIFACT_REPOSITORY`); tests point it at a `file://` folder."""
    root = os.environ.get("CHECKPOINT_EXPERIENCE_MAVEN_REPO") or MAVEN_CENTRAL
    return root if root.endswith("/") else root + "/"


def _repository_name() -> str:
    root = repository()
    return "Maven Central" if root == MAVEN_CENTRAL else root


def parse(coordinate: str) -> tuple[str, str, str]:
    """`group:artifact:version` as a tuple; ValueError naming the coordinate otherwise."""
    parts = coordinate.split(":")
    if len(parts) != 3 or not all(parts) or any(c in coordinate for c in "<>\"'& /"):
        raise ValueError(f"{coordinate!r} is not a Maven coordinate group:artifact:version")
    return parts[0], parts[1], parts[2]


def find_ivy_jar() -> Path:
    """`pyspark/jars/ivy-*.jar`, found without importing PySpark (which is slow to import)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        raise JarFetchError(
            "jars",
            "PySpark is not installed, and its Ivy jar does the fetching",
            "run `uv sync` in the project",
        )
    for location in spec.submodule_search_locations:
        found = sorted(Path(location, "jars").glob("ivy-*.jar"))
        if found:
            return found[-1]
    raise JarFetchError(
        "jars",
        f"PySpark at {spec.submodule_search_locations[0]} has no jars/ivy-*.jar",
        "reinstall it with `uv sync --reinstall-package pyspark`",
    )


def _ivy_module(coordinates: Sequence[str], module: str) -> str:
    lines = [
        f"    <dependency org={quoteattr(g)} name={quoteattr(a)} rev={quoteattr(v)} "
        f'conf="default->default"/>'
        for g, a, v in map(parse, coordinates)
    ]
    return (
        '<ivy-module version="2.0">\n'
        f'  <info organisation="checkpoint-experience" module={quoteattr(module)} revision="1"/>\n'
        '  <configurations><conf name="default"/></configurations>\n'
        "  <dependencies>\n" + "\n".join(lines) + "\n  </dependencies>\n</ivy-module>\n"
    )


def _ivy_settings() -> str:
    # Only the repository: no ~/.ivy2 or ~/.m2, so what we fetch does not depend on what a
    # user's machine happens to hold. The nio lock lets two fetches share one download cache.
    return (
        '<ivysettings>\n  <settings defaultResolver="central"/>\n'
        '  <caches lockStrategy="artifact-lock-nio"/>\n'
        f'  <resolvers><ibiblio name="central" m2compatible="true" root={quoteattr(repository())}/>'
        "</resolvers>\n</ivysettings>\n"
    )


def run_ivy(
    coordinates: Sequence[str],
    retrieve_dir: Path,
    ivy_cache: Path,
    log_file: Path,
    on_poll: Callable[[], None] = lambda: None,
    module: str = "fetch",
) -> None:
    """Resolve `coordinates` and copy every jar into `retrieve_dir`; JarFetchError if Ivy fails.

    `on_poll` is called about five times a second while Ivy runs (the progress display).
    `module` names our side of the resolution: Ivy keeps one resolve report per module in the
    shared cache and retrieves from it, so two fetches at once must not share a module name.
    """
    java, ivy_jar = find_java(coordinates[0]), find_ivy_jar()
    work = log_file.parent
    (work / "ivy.xml").write_text(_ivy_module(coordinates, module), encoding="utf-8")
    (work / "ivysettings.xml").write_text(_ivy_settings(), encoding="utf-8")
    argv = [
        str(java),
        NO_PERF_FILE,
        "-Divy.maven.lookup.sources=false",
        "-Divy.maven.lookup.javadoc=false",
        "-jar",
        str(ivy_jar),
        "-settings",
        str(work / "ivysettings.xml"),
        "-ivy",
        str(work / "ivy.xml"),
        "-confs",
        "default",
        "-cache",
        str(ivy_cache),
        "-retrieve",
        f"{retrieve_dir}/[artifact]-[revision](-[classifier]).[ext]",
    ]
    with log_file.open("wb") as log:
        process = subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        try:
            _wait(process, on_poll, coordinates)
        finally:
            if process.poll() is None:  # Ctrl-C or timeout: do not leave Ivy downloading
                process.kill()
                process.wait()
    if process.returncode != 0:
        raise failure_from_log(log_file.read_text(encoding="utf-8", errors="replace"), coordinates)


def _wait(
    process: subprocess.Popen[bytes], on_poll: Callable[[], None], coordinates: Sequence[str]
) -> None:
    deadline = time.monotonic() + _TIMEOUT_SEC
    while process.poll() is None:
        if time.monotonic() > deadline:
            raise JarFetchError(
                ", ".join(coordinates),
                f"Ivy did not finish within {_TIMEOUT_SEC:.0f} s",
                "check the network and try again",
            )
        on_poll()
        time.sleep(0.2)


def failure_from_log(text: str, coordinates: Sequence[str]) -> JarFetchError:
    """What Ivy's log says went wrong, as one JarFetchError."""
    unresolved = [f"{g}:{a}:{v}" for g, a, v, _ in _UNRESOLVED.findall(text)]
    what = ", ".join(unresolved) or ", ".join(coordinates)
    where = _repository_name()
    unreachable = _UNREACHABLE.search(text)
    if unreachable:
        return JarFetchError(
            what,
            f"{where} cannot be reached ({unreachable.group(2).rsplit('.', 1)[-1]})",
            "check the network or proxy and try again",
        )
    if unresolved:
        return JarFetchError(what, f"not served by {where}", "check the version")
    last = [line.strip() for line in text.splitlines() if line.strip()][-1:] or ["no output"]
    return JarFetchError(
        what, f"Ivy failed: {last[0][:200]}", "see the Ivy log in the cache folder"
    )
