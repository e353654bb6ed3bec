"""CI's budget (tests/budget.py): every test has one part, and docs/testing.md shows the parts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.budget import BUDGET_MIN, NIGHTLY, PARTS, budget_lines, part_of

TESTING_MD = Path(__file__).resolve().parent.parent / "docs" / "testing.md"


def test_a_test_belongs_to_the_part_of_its_file_and_markers() -> None:
    assert (
        part_of("tests/scenarios/catalog/test_chaos_e2e.py", {"e2e"}).name
        == "scenarios, once each on the default stack"
    )
    assert (
        part_of("tests/scenarios/catalog/test_stacks_e2e.py", {"e2e"}).name
        == "two stacks, short-retention"
    )
    assert part_of("tests/scenarios/catalog/test_chaos_e2e.py", set()).name == "fast suite"
    assert part_of("tests/kafka_app/apache/test_cluster.py", {"e2e", "nightly"}) is NIGHTLY
    assert (
        part_of("tests/spark_app/test_connector_conformance.py", {"spark"}).name
        == "Spark's connector against our source"
    )
    assert part_of("tests/maven_jars/test_ivy.py", {"e2e"}).name == "the rest"
    assert part_of("tests/kafka_app/broker/test_compose.py", {"docker"}).name == "containers"
    assert part_of("tests/kafka_app/broker/test_compose.py", {"docker", "nightly"}) is NIGHTLY


def test_the_parts_fit_in_the_hour() -> None:
    assert sum(p.budget_min for p in PARTS) <= BUDGET_MIN - 5  # room for installs and fetches


def test_the_measured_table_says_what_went_over() -> None:
    lines = budget_lines({"fast suite": 3 * 60, "what a person sees": 10 * 60})
    fast = next(part for part in PARTS if part.name == "fast suite")
    assert lines[1].split()[-2:] == ["3.0", f"{fast.budget_min:.1f}"]
    over = [line for line in lines if "OVER BUDGET" in line]
    assert [line.split("  ")[0] for line in over] == ["what a person sees"]


def test_docs_show_every_part_with_its_budget() -> None:
    text = TESTING_MD.read_text()
    section = text[text.index("## The CI budget") :]
    rows = re.findall(r"^\| ([^|]+?) \| ([\d.]+) \|", section, re.MULTILINE)
    assert [(name, float(minutes)) for name, minutes in rows] == [
        (p.name, p.budget_min) for p in PARTS
    ]


def _nightly_table_entries() -> set[str]:
    """The first column of docs/testing.md's nightly table: a file, a test or one parameter."""
    text = TESTING_MD.read_text()
    section = text[text.index("### Nightly") : text.index("## Suites and markers")]
    return set(re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE))


def _nightly_tests() -> list[str]:
    """Every test marked nightly, as pytest collects it (node ids)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nightly",
            "-m",
            "nightly",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        cwd=TESTING_MD.parent.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_every_nightly_test_is_in_the_nightly_table_and_every_row_names_one() -> None:
    """A test left out of CI says why, and what CI keeps instead, in docs/testing.md#nightly:
    listed by its file, its name or its parameter."""
    entries, tests = _nightly_table_entries(), _nightly_tests()
    assert tests, "no nightly test collected"

    def listed(node: str) -> bool:
        return any(
            node == e or node.split("[")[0] == e or node.split("::")[0] == e for e in entries
        )

    assert [node for node in tests if not listed(node)] == []
    stale = [
        e for e in entries if not any(n == e or n.startswith((e + "::", e + "[")) for n in tests)
    ]
    assert stale == [], "rows of the nightly table that name no nightly test"
