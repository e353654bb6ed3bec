"""Which PySpark this app runs on, checked before anything imports the parts that need it.

Our Kafka source runs on PySpark 4.0 and 4.1 too (without admission control, which Python
streaming sources have since 4.2: there `maxOffsetsPerTrigger` is refused in one line), but
their `applyInPandasWithState` fails with the pyarrow this project locks (tried: PySpark 4.1.1
with pyarrow 26 fails in `RecordBatch.slice`, with pyarrow 18 it runs). Until the app runs
each Spark line in an environment of its own (issue 10), an older PySpark gets one line here
instead of that traceback, naming the version found and what to run.

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
    why = ("PySpark 4.0 and 4.1 fail in applyInPandasWithState with the pyarrow this project "
           "locks" if found < OLDEST_SUPPORTED
           else f"it is tested on PySpark {oldest} to {NEWEST_MAJOR}.x only")
    raise SparkVersionError(
        f"PySpark {version} is installed, but this app needs PySpark {oldest} "
        f"to {NEWEST_MAJOR}.x ({why}). Run it in the project's environment with `uv run python -m "
        f"spark_app` (its lock has the tested PySpark), or install 'pyspark[sql]>={oldest},<"
        f"{NEWEST_MAJOR + 1}'.")
