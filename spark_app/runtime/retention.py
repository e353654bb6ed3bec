"""How much history a checkpoint keeps: `--min-batches-to-retain` and `--extra-space-ratio`,
as Spark confs.

- `spark.sql.streaming.minBatchesToRetain` (Spark's default 100): after each batch the driver
  deletes `offsets/<N>` and `commits/<N>` older than the last N batches; the state store's
  background maintenance deletes state versions older than that.
- `spark.sql.streaming.ratioExtraSpaceAllowedInCheckpoint` (Spark 4.0+, default 0.3): the
  maintenance deletes stale state versions only once more than ratio x N of them have piled up,
  in one go, to list the folder less often (0: every maintenance deletes what is stale).

Neither is pinned in the offset log: a restart may change them.

Usage: `conf = retention_conf(settings)   # {"spark.sql.streaming.minBatchesToRetain": "20"}`
"""

from __future__ import annotations

from spark_app.settings import SparkAppSettings

__all__ = [
    "RETAIN_CONF",
    "RATIO_CONF",
    "SPARK_MIN_BATCHES_TO_RETAIN",
    "SPARK_EXTRA_SPACE_RATIO",
    "retention_conf",
]

RETAIN_CONF = "spark.sql.streaming.minBatchesToRetain"
RATIO_CONF = "spark.sql.streaming.ratioExtraSpaceAllowedInCheckpoint"
SPARK_MIN_BATCHES_TO_RETAIN = 100
SPARK_EXTRA_SPACE_RATIO = 0.3


def retention_conf(settings: SparkAppSettings) -> dict[str, str]:
    """The confs the settings change; Spark's defaults for the rest."""
    conf = {}
    if settings.min_batches_to_retain is not None:
        conf[RETAIN_CONF] = str(settings.min_batches_to_retain)
    if settings.extra_space_ratio is not None:
        conf[RATIO_CONF] = repr(float(settings.extra_space_ratio))
    return conf
