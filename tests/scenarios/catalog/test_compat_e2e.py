"""compat as a user runs it: the full matrix, and a corpus kept on one slice then restarted.

Both are nightly (docs/testing.md's nightly table): the full matrix is the counter on three
stores and formats plus the gallery over six line pairs, and the corpus test starts Spark
sixteen times on two PySpark lines. Marked e2e."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from scenarios.engine.settings import PROJECT_ROOT
from scenarios.run.compat_plan import chosen_lines, chosen_queries, plan_cells
from tests.stopped_gently import run_stoppable


def _scenarios(*args: str, timeout: float) -> tuple[int, str]:
    done = run_stoppable(
        [sys.executable, "-m", "scenarios", *args], cwd=PROJECT_ROOT, timeout=timeout
    )
    return done.returncode, done.stdout + done.stderr


def _verdicts(report: Path) -> dict[str, str]:
    """Each compat or corpus cell's verdict kind, by scenario name."""
    found = {}
    for path in report.glob("*.json"):
        result = json.loads(path.read_text())
        verdict = result.get("facts", {}).get("change_verdict")
        found[result["name"]] = verdict["kind"] if verdict else f"error: {result.get('error')}"
    return found


def _digest(folder: Path) -> str:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return hashlib.sha256(
        b"".join(str(p.relative_to(folder)).encode() + p.read_bytes() for p in files)
    ).hexdigest()


@pytest.mark.e2e
@pytest.mark.nightly
def test_the_full_matrix_gives_every_cell_a_verdict(tmp_path: Path) -> None:
    code, printed = _scenarios("compat", "--fast", "--report", str(tmp_path), timeout=4 * 3600)
    cells = plan_cells(chosen_queries(""), chosen_lines(""))
    verdicts = _verdicts(tmp_path)
    assert sorted(verdicts) == sorted(f"compat-{c.name}" for c in cells), printed[-4000:]
    assert all(not v.startswith("error") for v in verdicts.values()), verdicts
    assert code == (0 if set(verdicts.values()) == {"continues"} else 1)
    assert "| query | store, format |" in printed  # the table closes the run


@pytest.mark.e2e
@pytest.mark.nightly
def test_a_kept_corpus_restarts_on_a_candidate_line_and_is_left_as_it_was(tmp_path: Path) -> None:
    corpus, first, second = tmp_path / "corpus", tmp_path / "compat", tmp_path / "corpus-run"
    code, printed = _scenarios(
        "compat", "--lines", "4.0.0,4.2.0", "--queries", "count_per_key,dedup", "--fast",
        "--keep", str(corpus), "--report", str(first), timeout=1800,
    )  # fmt: skip
    assert code in (0, 1), printed[-4000:]
    manifests = [json.loads(p.read_text()) for p in sorted(corpus.glob("*/manifest.json"))]
    lines = sorted(m["line"] for m in manifests)
    assert lines == ["4.0.0", "4.0.0", "4.2.0", "4.2.0"], printed[-4000:]
    assert all(m["store"] == "hdfs" for m in manifests)
    # The manifest names the cell's copy of its module, which is the gallery's as it ran.
    for m in manifests:
        module = PROJECT_ROOT / "queries" / f"{m['cell'].split('-hdfs-')[0]}.py"
        assert (corpus / m["cell"] / m["query"]).read_text() == module.read_text()
    assert all(
        (corpus / m["cell"] / "records.jsonl").read_text().count("\n") >= 20 for m in manifests
    )
    # The writing line's rows are kept too: an append query is judged on its whole output.
    assert all(any((corpus / m["cell"] / "query-output").glob("batch-*.jsonl")) for m in manifests)
    before = _digest(corpus)
    code, printed = _scenarios(
        "check-change", "--corpus", str(corpus), "--to", "4.2.0", "--fast",
        "--report", str(second), timeout=1800,
    )  # fmt: skip
    verdicts = _verdicts(second)
    assert len(verdicts) == 4, printed[-4000:]
    # Written on 4.2.0 and restarted on 4.2.0: nothing changed, so each must continue and agree,
    # dedup too, whose groups straddling the stop the writing line wrote (issue 53).
    same_line = [v for name, v in verdicts.items() if "4.2.0-to-4.0.0-on-4.2.0" in name]
    assert same_line == ["continues", "continues"], printed[-4000:]
    assert code == (0 if set(verdicts.values()) == {"continues"} else 1)
    assert _digest(corpus) == before  # the corpus is only read
