"""spark.log: where the app's own lines and our Kafka source's warnings go, beside Spark's.

The driver (app.py) and the Python workers that run our source's tasks are different processes,
and each attaches its logger to the same file in the same layout as Spark's log4j lines, so one
file tells the whole story of a run in order.

Usage: `log_to(logging.getLogger("spark_app"), Path("log/spark.log"))`
"""

from __future__ import annotations

import logging
from pathlib import Path

__all__ = ["LOG_FORMAT", "log_to"]

LOG_FORMAT = "[%(levelname)s] [%(asctime)s] [%(name)s]: %(message)s"


def log_to(logger: logging.Logger, path: Path) -> None:
    """Send `logger`'s INFO and above to `path` (only once). A Python worker is reused across
    queries, so a handler for another file is replaced, never added beside it."""
    target = str(path.resolve())
    files = [h for h in logger.handlers if isinstance(h, logging.FileHandler)]
    if any(h.baseFilename == target for h in files):
        return
    for old in files:
        logger.removeHandler(old)
        old.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(target, encoding="utf-8")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
