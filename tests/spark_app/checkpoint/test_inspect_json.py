"""`inspect --json`'s report, printed by inspect and read back by its own parser, as the
scenarios read it: with Spark's lines around it."""

from __future__ import annotations

import json
from pathlib import Path

from spark_app.checkpoint.inspect import inspect_checkpoint, report_in_output
from tests.spark_app.checkpoint.test_reader import make_checkpoint


def test_the_printed_report_is_read_back_whole_between_other_lines(tmp_path: Path) -> None:
    checkpoint = make_checkpoint(tmp_path, [5, 9], committed=2)
    report = inspect_checkpoint(checkpoint, None, with_state=False).to_json()
    output = (
        'WARNING: Spark says {"not": "the report"}\n'
        + json.dumps(report, indent=2)
        + "\nINFO: done\n"
    )
    assert report_in_output(output) == report


def test_an_output_without_the_report_reads_as_none() -> None:
    assert report_in_output("no json here\n{not json\n") is None
    assert report_in_output('{"other": 1}\n') is None
