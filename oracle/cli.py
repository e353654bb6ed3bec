"""`python -m oracle evaluate`: a query module over every record sent, the rows as JSON lines.

Exit 0 with one closing line; bad input (a query module that cannot run, a --lost that does not
parse) is one line and exit 2, before Spark starts where that can be known.

Usage:
    python -m oracle evaluate --query queries/dedup.py --records log/sent-records.jsonl \\
        --out expected.jsonl [--topic Experience] [--lost Experience:0:24-59]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from kafka_app.sent_records import read_sent_records
from oracle.evaluate import LostRange, evaluate, kept_records, write_expected
from spark_app.errors import SparkAppError
from spark_app.query.user_query import load_query
from spark_app.settings import SparkAppSettings

__all__ = ["main_parser", "run_cli"]


def _lost(text: str) -> LostRange:
    try:
        return LostRange.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m oracle")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser(
        "evaluate",
        description="A query module evaluated over every record the producer sent (its "
        "sent-records.jsonl), as a batch query where Spark runs one, else as one stream read "
        "to its end; the rows written as JSON lines.",
    )
    p.add_argument("--query", type=Path, required=True, metavar="FILE.py")
    p.add_argument("--records", type=Path, required=True, metavar="FILE.jsonl")
    p.add_argument("--topic", default=None, help="only this topic's records (default: all)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl")
    p.add_argument(
        "--lost",
        action="append",
        default=[],
        type=_lost,
        metavar="TOPIC:PARTITION:FROM-UNTIL",
        help="offsets retention deleted before the query read them: left out (repeatable)",
    )
    return parser


def _evaluate(args: argparse.Namespace) -> int:
    query = load_query(args.query)  # one line, exit 2, before Spark starts
    records = kept_records(read_sent_records(args.records, args.topic), args.lost)
    # After the checks: Spark only for a query that can run. The app's own session (the class
    # archive, C1, the JVM's folders cleaned up), so the oracle starts as fast as the app does;
    # our Python source, so no connector is fetched for a query that reads no Kafka.
    from spark_app.runtime.session import SparkSessionResource

    scratch = Path(tempfile.mkdtemp(prefix="oracle-"))
    settings = SparkAppSettings(
        source="python", master="local[2]", shuffle_partitions=2, log_dir=scratch / "log"
    )
    try:
        with SparkSessionResource(settings) as spark:
            rows = evaluate(spark, query, records, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    write_expected(args.out, rows)
    print(f"{args.query}: {len(rows)} row(s) from {len(records)} record(s) into {args.out}")
    return 0


def run_cli(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _evaluate(args)
    except SparkAppError as error:  # the query module's one line
        print(f"oracle: {error}", file=sys.stderr, flush=True)
        return error.exit_code
