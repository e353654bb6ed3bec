"""Logging for the Kafka side: everything the broker and the producer do goes to `log/kafka.log`.

Usage: `setup_logging(Path("log"))` once, at the command-line edge, before starting anything.
"""

from __future__ import annotations

import logging
from pathlib import Path

__all__ = ["LOG_FILE_NAME", "setup_logging"]

LOG_FILE_NAME = "kafka.log"

# The seed's log format, so both apps' logs read alike.
_FORMAT = "[%(levelname)s] [%(asctime)s] [%(name)s]: %(message)s"


def setup_logging(log_dir: Path, level: int = logging.INFO) -> Path:
    """Send the `kafka_app` loggers to `<log_dir>/kafka.log` (appending) and return its path.

    Idempotent: calling it again for the same folder adds no second handler.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    path = (log_dir / LOG_FILE_NAME).resolve()
    logger = logging.getLogger("kafka_app")
    logger.setLevel(level)
    for handler in logger.handlers:
        if isinstance(handler, logging.FileHandler) and Path(handler.baseFilename) == path:
            return path
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_FORMAT))
    logger.addHandler(handler)
    return path
