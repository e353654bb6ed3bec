"""Which PySpark (and pyarrow) this app runs on, checked before anything imports the parts that need them.

The app runs on every PySpark 4 line. On 4.0 and 4.1 it does without admission control (Python
streaming sources have `ReadLimit` since 4.2, so `maxOffsetsPerTrigger` and friends are refused
there in one line), and those lines need a pyarrow below 19: their applyInPandasWithState hands
pyarrow's `RecordBatch.slice` a float, which newer pyarrow refuses with a TypeError deep inside a
Python worker (tried: PySpark 4.1.1 with pyarrow 26 fails, with 18.1 it runs). Scenarios make
such an environment themselves (`python -m scenarios run NAME --spark 4.0.5`); someone running
the app by hand gets one line saying what to install instead of that traceback.

Usage: `check_spark_version()`  # raises SparkVersionError on an unsupported PySpark or pyarrow
"""

from __future__ import annotations

from spark_app.errors import SparkVersionError

__all__ = [
    "major_minor",
    "NEW_PYARROW_FROM",
    "NEWEST_MAJOR",
    "OLDEST_SUPPORTED",
    "PYARROW_LIMIT_BEFORE_4_2",
    "check_spark_version",
    "installed_pyarrow_version",
    "installed_spark_version",
]

OLDEST_SUPPORTED = (4, 0)
NEWEST_MAJOR = 4
# Spark lines before this one need pyarrow below PYARROW_LIMIT_BEFORE_4_2 (see above); the
# scenarios' per-version environments (scenarios/engine/spark_envs.py) pin it from here.
NEW_PYARROW_FROM = (4, 2)
PYARROW_LIMIT_BEFORE_4_2 = 19


def installed_spark_version() -> str:
    import pyspark  # only its version: importing pyspark starts no JVM

    return pyspark.__version__


def installed_pyarrow_version() -> str:
    from importlib import metadata

    return metadata.version("pyarrow")


def major_minor(version: str) -> tuple[int, int]:
    """A version's line as numbers: "4.2.0" -> (4, 2), "4.1.0rc1" -> (4, 1)."""
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def check_spark_version(version: str | None = None, pyarrow: str | None = None) -> str:
    """The PySpark version in use, if this app supports it with this pyarrow; else one clear error."""
    version = version or installed_spark_version()
    found = major_minor(version)
    oldest = ".".join(map(str, OLDEST_SUPPORTED))
    if not (OLDEST_SUPPORTED <= found and found[0] <= NEWEST_MAJOR):
        raise SparkVersionError(
            f"PySpark {version} is installed, but this app needs PySpark {oldest} to "
            f"{NEWEST_MAJOR}.x (Python streaming sources exist since 4.0). Run it in the "
            f"project's environment with `uv run python -m spark_app` (its lock has the tested "
            f"PySpark), or install 'pyspark[sql]>={oldest},<{NEWEST_MAJOR + 1}'."
        )
    if found < NEW_PYARROW_FROM:
        pyarrow = pyarrow or installed_pyarrow_version()
        if major_minor(pyarrow)[0] >= PYARROW_LIMIT_BEFORE_4_2:
            raise SparkVersionError(
                f"PySpark {version} with pyarrow {pyarrow}: PySpark 4.0 and 4.1 fail in "
                f"applyInPandasWithState with pyarrow {PYARROW_LIMIT_BEFORE_4_2} or newer. Install "
                f"'pyarrow<{PYARROW_LIMIT_BEFORE_4_2}' beside it, or let the scenarios make such an "
                f"environment: `uv run python -m scenarios run NAME --spark {version}`."
            )
    return version
