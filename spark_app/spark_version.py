"""Which PySpark this app runs on, checked before anything imports the parts that need it.

Our Kafka source uses admission control for Python streaming sources (`ReadLimit` in
`pyspark.sql.streaming.datasource`), which PySpark has since 4.2. On an older PySpark the
import would fail with a ModuleNotFoundError traceback deep in the source; this says so in one
line instead, naming the version found and what to run.

Usage: `check_spark_version()`  # raises SparkVersionError on an unsupported PySpark
"""

from __future__ import annotations

from spark_app.errors import SparkVersionError

__all__ = ["OLDEST_SUPPORTED", "NEWEST_MAJOR", "check_spark_version", "installed_spark_version"]

OLDEST_SUPPORTED = (4, 2)
NEWEST_MAJOR = 4


def installed_spark_version() -> str:
    import pyspark  # only its version: importing pyspark starts no JVM

    return pyspark.__version__


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


def check_spark_version(version: str | None = None) -> str:
    """The PySpark version in use, if this app supports it; else one clear error."""
    version = version or installed_spark_version()
    found = _major_minor(version)
    if OLDEST_SUPPORTED <= found and found[0] <= NEWEST_MAJOR:
        return version
    oldest = ".".join(map(str, OLDEST_SUPPORTED))
    why = ("admission control for Python streaming sources (pyspark.sql.streaming.datasource) "
           f"arrived in PySpark {oldest}" if found < OLDEST_SUPPORTED
           else f"it is tested on PySpark {oldest} to {NEWEST_MAJOR}.x only")
    raise SparkVersionError(
        f"PySpark {version} is installed, but this app needs PySpark {oldest} "
        f"to {NEWEST_MAJOR}.x ({why}). Run it in the project's environment with `uv run python -m "
        f"spark_app` (its lock has the tested PySpark), or install 'pyspark[sql]>={oldest},<"
        f"{NEWEST_MAJOR + 1}'.")
