"""JVM flags every Spark JVM we start gets: the driver, a cluster's daemons and executors, the
class archive's writer.

Usage: `[..., NO_PERF_FILE]` in a JVM's options
"""

from __future__ import annotations

__all__ = ["NO_PERF_FILE"]

# A JVM keeps its counters in /tmp/hsperfdata_<user>/<pid>, which a kill -9 leaves behind (the
# scenarios kill JVMs on purpose); nothing of ours reads them (jstat and jcmd would).
NO_PERF_FILE = "-XX:-UsePerfData"
