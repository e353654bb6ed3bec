"""The command line of the scenarios: list them, run them, verify an output log.

Usage:
    python -m scenarios list
    python -m scenarios run all --fast --report reports
    python -m scenarios verify log/streaming-output.log --json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarios.verify import VerifyReport, verify_file

__all__ = ["main_parser", "run_cli"]

DEFAULT_OUTPUT_LOG = Path("log/streaming-output.log")


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios",
        description="Reproduce the checkpoint scenarios unattended, or check an output log.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser(
        "verify", help="check the Spark app's output log: missing, duplicated, count breaks")
    verify.add_argument("file", nargs="?", type=Path, default=DEFAULT_OUTPUT_LOG,
                        help=f"the output log (default {DEFAULT_OUTPUT_LOG})")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    return parser


def run_cli(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    try:
        if args.command == "verify":
            return _verify(args.file, as_json=args.json)
    except KeyboardInterrupt:
        return 0
    return 2


def _verify(path: Path, *, as_json: bool) -> int:
    try:
        report = verify_file(path)
    except OSError as error:
        reason = error.strerror or str(error)
        print(f"cannot read {path}: {reason}; run the Spark app first or name the log file",
              file=sys.stderr)
        return 2
    _print_report(report, as_json=as_json)
    return 0 if report.ok else 1


def _print_report(report: VerifyReport, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_dict(), indent=2))
        return
    for line in report.summary_lines():
        print(line)
