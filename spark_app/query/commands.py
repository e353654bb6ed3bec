"""The app's commands beside the query: `read`, `check-query` and `repartition-state`.

- `python -m spark_app read`: the topic read once through the connector (topic_read.py).
- `python -m spark_app check-query FILE.py`: a user's query module checked without Kafka
  (user_query.py, then query_check.py on a stand-in stream): exit 0, or one line and exit 2.
- `python -m spark_app repartition-state N`: a stopped query's state spread over N partitions
  (state_repartition.py, PySpark 4.2's private API): exit 0, or one line and exit 1.

Usage: `run_check_query(["queries/dedup.py"])`
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from spark_app.lines.query_lines import QueryChecked, checked_line
from spark_app.query.state_repartition import repartition_state
from spark_app.query.user_query import load_query
from spark_app.runtime.spark_version import check_spark_version
from spark_app.settings import SparkAppSettings

__all__ = ["check_query_parser", "run_check_query", "run_read", "run_repartition_state"]


def run_read(settings: SparkAppSettings) -> int:
    check_spark_version()
    from spark_app.query.topic_read import read_topic  # pulls in pyspark: only when reading

    return read_topic(settings)


def run_repartition_state(
    settings: SparkAppSettings, partitions: int, running: Callable[[Path], list[int]]
) -> int:
    """`repartition-state N` on `settings`' checkpoint; `running` names the apps that run on a
    checkpoint folder (reset.py's look at /proc, handed down: the query floor is below it)."""
    print(repartition_state(settings, partitions, running), flush=True)
    return 0


def check_query_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m spark_app check-query",
        description="Check a query module as Spark would run it, without Kafka: it imports, "
        "build(records) gives a stream with its KEY columns, and Spark accepts it in its "
        "OUTPUT_MODE. Exit 0, or one line naming the file and what to change and exit 2.",
    )
    p.add_argument("query", type=Path, metavar="FILE.py")
    p.add_argument("--log-dir", type=Path, default=Path("log"), help="where Spark's log goes")
    return p


def _session(log_dir: Path):  # type: ignore[no-untyped-def]
    """A small batch session of the app's kind (its log in `log_dir`)."""
    from spark_app.runtime.session import SparkSessionResource

    settings = SparkAppSettings(log_dir=log_dir, master="local[2]", shuffle_partitions=1)
    return SparkSessionResource(settings)


def run_check_query(argv: Sequence[str]) -> int:
    args = check_query_parser().parse_args(argv)
    query = load_query(args.query)  # QueryModuleError: one line, exit 2, before Spark starts
    check_spark_version()
    from spark_app.query.query_check import check_query

    scratch = Path(tempfile.mkdtemp(prefix="spark_app-check-query-"))
    try:
        with _session(args.log_dir) as spark:
            depends = check_query(spark, query, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(checked_line(QueryChecked(str(args.query), query.OUTPUT_MODE, query.KEY, depends)))
    return 0
