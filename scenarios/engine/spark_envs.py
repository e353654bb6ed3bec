"""A Python environment per PySpark version, so scenarios can run the Spark app on any Spark 4 line.

The scenarios themselves stay in the project's environment (its lock has the newest PySpark);
only the Spark app (`python -m spark_app`) runs with the interpreter of the chosen version's
environment, the project's folder on its PYTHONPATH. Spark's Python workers are started with
that same interpreter (spark_app/runtime/session.py), so driver, source and state functions all run on
the chosen PySpark.

An environment is made with uv on first use and kept in `~/.cache/checkpoint-experience/pyspark/
<version>/` (or under $XDG_CACHE_HOME); `rm -rf` of that folder is always safe, the next run
makes it again. It is built in a folder of its own and renamed into place only when complete, so
a Ctrl-C half-way never leaves a broken environment behind.

PySpark 4.0 and 4.1 get the pyarrow spark_app/runtime/spark_version.py says they need (below 19: see
there why); from 4.2 on the environment has the project's own pyarrow.

Usage:
    python = spark_python("4.0.0", say=print)   # e.g. ~/.cache/.../pyspark/4.0.0/bin/python
    SparkLauncher(..., python=python)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from scenarios.errors import ScenarioError
from spark_app.runtime.class_cache import default_cache_dir
from spark_app.runtime.spark_version import (
    NEW_PYARROW_FROM,
    PYARROW_LIMIT_BEFORE_4_2,
    installed_spark_version,
)

__all__ = [
    "SERVED_LINES",
    "SparkEnvError",
    "environment_folder",
    "locked_spark_version",
    "requirements",
    "uv_path",
    "pyarrow_requirement",
    "spark_python",
]

_VERSION = re.compile(r"4\.\d+\.\d+")
# Per Spark 4 line, the newest release whose Kafka connector Maven Central served whole on
# 2026-11-24 (spark-sql-kafka-0-10_2.13 and its spark-token-provider-kafka-0-10_2.13: the
# connector alone is listed up to 4.0.4 and 4.1.3, its token provider only at 4.0.0 and 4.1.1).
# PyPI has newer ones (up to 4.0.5, 4.1.4, 4.2.1, 4.3.0), but on those `--source spark-kafka`
# stops with one line, so a version matrix meant for both sources uses these. Each runs with
# its own connector version (spark_app/runtime/connector_jars.py).
SERVED_LINES = ("4.0.0", "4.1.1", "4.2.0")


class SparkEnvError(ScenarioError):
    """A PySpark version we cannot run: not a 4.x release, or its environment cannot be made."""


def locked_spark_version() -> str:
    """The PySpark of the project's own environment (the lock's)."""
    return installed_spark_version()


def environment_folder(version: str) -> Path:
    return default_cache_dir() / "pyspark" / version


def pyarrow_requirement(version: str) -> str:
    """Which pyarrow the environment of PySpark `version` gets (see the module's docstring)."""
    major, minor = (int(part) for part in version.split(".")[:2])
    if (major, minor) < NEW_PYARROW_FROM:
        return f"pyarrow>=15,<{PYARROW_LIMIT_BEFORE_4_2}"
    return f"pyarrow=={metadata.version('pyarrow')}"


def spark_python(version: str | None, say: Callable[[str], None] = print) -> str:
    """The interpreter that runs the Spark app on PySpark `version`: the project's own for the
    locked version (or None), else that version's environment, made on first use."""
    if version is None or version == locked_spark_version():
        return sys.executable
    if not _VERSION.fullmatch(version):
        raise SparkEnvError(
            f"--spark {version}: give a PySpark 4 release such as 4.0.0 or 4.1.1 "
            f"(the project's own is {locked_spark_version()})"
        )
    folder = environment_folder(version)
    if _made_with(folder) != requirements(version):
        shutil.rmtree(folder, ignore_errors=True)  # made before a requirement was added
        _make(version, folder, say)
    _add_connect(version, folder, say)
    return str(folder / "bin" / "python")


# In an environment once Spark Connect's client was added to it (`_add_connect`).
_CONNECT_MARKER = "connect.json"


def _add_connect(version: str, folder: Path, say: Callable[[str], None]) -> None:
    """Spark Connect's client (grpcio and its kin, PySpark's `connect` extra), added once to an
    environment: `spark_app --connect` and the museum's SPARK-57489 need it. Added, not made
    anew, so an environment made before it keeps its 450 MB and only fetches about 15 MB."""
    marker = folder / _CONNECT_MARKER
    if marker.is_file():
        return
    say(f"adding Spark Connect's client to PySpark {version}'s environment (first use only)")
    python = str(folder / "bin" / "python")
    # With the pyarrow and pandas the environment was made with, or pip moves them on.
    kept = [pyarrow_requirement(version), "pandas>=2.2,<3"]
    _uv("pip", "install", "--python", python, f"pyspark[connect]=={version}", *kept)
    marker.write_text(json.dumps({"pyspark": version, "extra": "connect"}) + "\n")


def requirements(version: str) -> list[str]:
    # protobuf: transformWithStateInPandas's workers talk to Spark's state server in it
    # (`--counter transform-with-state`, the state scenarios), as in the project's own lock.
    return [
        f"pyspark[sql]=={version}",
        pyarrow_requirement(version),
        f"kafka-python=={metadata.version('kafka-python')}",
        "pandas>=2.2,<3",
        f"protobuf=={metadata.version('protobuf')}",
    ]


def _made_with(folder: Path) -> list[str] | None:
    """The requirements a complete environment was made with (None: none there)."""
    try:
        return list(json.loads((folder / "ready.json").read_text())["requirements"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _make(version: str, folder: Path, say: Callable[[str], None]) -> None:
    building = folder.with_name(f".{version}.building-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    wanted = requirements(version)
    say(
        f"making an environment for PySpark {version} in {folder} (first use only; "
        f"downloads about 450 MB: {', '.join(wanted)})"
    )
    try:
        _uv("venv", "--quiet", "--relocatable", "--python", sys.executable, str(building))
        _uv("pip", "install", "--python", str(building / "bin" / "python"), *wanted)
        (building / "ready.json").write_text(
            json.dumps({"pyspark": version, "requirements": wanted}) + "\n"
        )
        try:
            building.rename(folder)
        except OSError:  # another run made it meanwhile: keep theirs
            if not (folder / "ready.json").is_file():
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    say(f"PySpark {version} is ready ({folder})")


def uv_path(needed_for: str = "--spark needs uv to make the environment of another PySpark") -> str:
    """uv's executable; else one line saying what needs it and where to get it."""
    uv = shutil.which("uv")
    if uv is None:
        raise SparkEnvError(f"{needed_for} (https://docs.astral.sh/uv/); install it and run again")
    return uv


def _uv(*args: str) -> None:
    uv = uv_path()
    # uv draws its own download progress on a terminal; off one it stays quiet.
    done = subprocess.run(
        [uv, *args],
        stdout=subprocess.DEVNULL,
        stderr=None if sys.stderr.isatty() else subprocess.PIPE,
        text=True,
    )
    if done.returncode != 0:
        last = (done.stderr or "").strip().splitlines()[-1:] or ["see its output above"]
        raise SparkEnvError(f"uv {args[0]} failed making a PySpark environment: {last[0]}")
