"""check-change as a CI job runs it before a deploy: two pairs of queries/changes/ on the default
stack and line, one the checkpoint takes and one Spark refuses (issue 53's two CI pairs; the
twelve pairs and the lines across are nightly or by hand: docs/your-query.md). Marked e2e."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from tests.stopped_gently import run_stoppable

COUNT = "queries/count_per_key.py"


def _check_change(new: str, report: Path) -> tuple[int, str, dict]:
    done = run_stoppable(
        [sys.executable, "-m", "scenarios", "check-change", COUNT, new, "--fast"]
        + ["--report", str(report)],
        cwd=PROJECT_ROOT,
        timeout=900,
    )
    result = json.loads((report / "check-change.json").read_text())
    return done.returncode, done.stdout + done.stderr, result


@pytest.mark.e2e
def test_a_column_added_after_the_count_continues_and_agrees_with_the_oracle(
    tmp_path: Path,
) -> None:
    code, printed, result = _check_change("queries/changes/01-column-added/new.py", tmp_path)
    assert code == 0, printed[-4000:]
    verdict = result["facts"]["change_verdict"]
    assert verdict["kind"] == "continues", verdict
    assert [c["held"] for c in result["checks"]] == [True]
    assert "continues" in printed


@pytest.mark.e2e
def test_a_key_changed_in_type_is_refused_with_sparks_error_class_and_what_to_do(
    tmp_path: Path,
) -> None:
    code, printed, result = _check_change("queries/changes/03-key-type-changed/new.py", tmp_path)
    assert code == 1, printed[-4000:]
    verdict = result["facts"]["change_verdict"]
    assert verdict["kind"] == "refused", verdict
    assert "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE" in verdict["line"]
    assert "new checkpoint" in verdict["line"]  # what to do, not only what went wrong
    assert "refused" in printed
