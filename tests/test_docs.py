"""The README and docs/ stay true to the code: links lead somewhere, shown commands parse.

Checks, all without starting a process:
- every relative link in README.md, BENCHMARKS.md and docs/*.md names a file that exists, and a
  heading of it when the link has an `#anchor` (GitHub's anchor rules);
- every `uv run python -m …` command the README (and any page) shows parses with the real
  command-line parser of that module (its flags, choices and types), and names only
  registered scenarios;
- README.md has fewer than 250 lines;
- the README's table of scenarios names exactly the registered scenarios, in `run all`'s order.

Usage: `uv run pytest tests/test_docs.py`
"""

from __future__ import annotations

import argparse
import re
import shlex
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from scenarios.registry import all_scenarios
from scenarios.report.readme_table import with_table

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250

_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"(?<!!)\[[^\[\]]*\]\(([^()\s]+)\)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")


# --- reading markdown -------------------------------------------------------------------------


def _prose(text: str) -> str:
    """The text outside fenced code blocks and inline code, line count kept."""
    lines, fenced = [], False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else _INLINE_CODE.sub("``", line))
    return "\n".join(lines)


def _code_blocks(text: str) -> Iterator[str]:
    """Each line inside a fenced code block."""
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            yield line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = unicodedata.normalize("NFC", heading.strip().lower())
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every heading's anchor on a page, with GitHub's -1, -2 … for repeated headings."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[str]:
    return _LINK.findall(_prose(page.read_text(encoding="utf-8")))


def _is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)


# --- links ------------------------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if not _is_relative(target):
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target}: no heading with anchor #{anchor} in {linked.name}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_slug_follows_github() -> None:
    assert (
        slug("Offsets outside Spark: `--offsets-from-group GROUP`")
        == "offsets-outside-spark---offsets-from-group-group"
    )
    assert (
        slug("Real Apache Kafka instead (`docker-compose.yml`)")
        == "real-apache-kafka-instead-docker-composeyml"
    )
    assert slug("When it fails") == "when-it-fails"


# --- commands ---------------------------------------------------------------------------------


def _parser_for(module: str, args: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The parser that `python -m MODULE ARGS` really uses, and the arguments it gets."""
    first = args[:1]
    if module == "scenarios":
        if first == ["demo"]:
            from scenarios.demo.settings import main_parser as demo_parser

            return demo_parser(), args[1:]
        if first == ["kit"]:
            from scenarios.kit import main_parser as kit_parser

            return kit_parser(), args[1:]
        if first == ["check-change"]:
            from scenarios.change_command import main_parser as change_parser

            return change_parser(), args[1:]
        if first == ["compat"]:
            from scenarios.compat_command import main_parser as compat_parser

            return compat_parser(), args[1:]
        if first == ["exercise"]:
            from scenarios.exercise_command import main_parser as exercise_parser

            return exercise_parser(), args[1:]
        if first == ["nemesis"]:
            from scenarios.nemesis_command import main_parser as nemesis_parser

            return nemesis_parser(), args[1:]
        if first == ["puzzle"]:
            from scenarios.puzzle_command import main_parser as puzzle_parser

            return puzzle_parser(), args[1:]
        from scenarios.cli import main_parser as scenarios_parser

        return scenarios_parser(), args
    if module == "spark_app":
        from spark_app import cli as spark_cli

        if first == ["inspect"]:
            return spark_cli.inspect_parser(), args[1:]
        if first == ["cluster"]:
            return spark_cli.cluster_parser(), args[1:]
        if first == ["reset"]:
            return spark_cli.reset_parser(), args[1:]
        if first == ["read"]:
            return spark_cli.read_parser(), args[1:]
        if first == ["repartition-state"]:
            return spark_cli.repartition_parser(), args[1:]
        if first == ["check-query"]:
            from spark_app.query.commands import check_query_parser

            return check_query_parser(), args[1:]
        return spark_cli.main_parser(), args
    if module == "oracle":
        from oracle.cli import main_parser as oracle_parser

        return oracle_parser(), args
    if module == "checkpoint_stores":
        from checkpoint_stores.cli import main_parser as stores_parser

        return stores_parser(), args
    if module in ("kafka_app", "kafka_app.broker"):
        from kafka_app.broker.cli import main_parser as broker_parser

        if module == "kafka_app.broker":
            return broker_parser(), args
        if first == ["broker"]:
            return broker_parser(), args[1:]
        if first == ["image"]:
            from kafka_app.container.cli import main_parser as image_parser

            return image_parser(), args[1:]
        from kafka_app.cli import main_parser as producer_parser

        return producer_parser(), args
    if module == "scenarios.report.readme_table":
        from scenarios.report.readme_table import main_parser as table_parser

        return table_parser(), args
    if module == "scenarios.puzzle.table":
        from scenarios.puzzle.table import main_parser as puzzle_table_parser

        return puzzle_table_parser(), args
    if module == "scenarios.report.workshop_plan":
        from scenarios.report.workshop_plan import main_parser as plan_parser

        return plan_parser(), args
    if module == "scenarios.report.query_tables":
        from scenarios.report.query_tables import main_parser as tables_parser

        return tables_parser(), args
    if module == "scenarios.report.kafka_axis":
        from scenarios.report.kafka_axis import main_parser as kafka_axis_parser

        return kafka_axis_parser(), args
    if module == "scenarios.report.api_fidelity":
        from scenarios.report.api_fidelity import main_parser as api_fidelity_parser

        return api_fidelity_parser(), args
    if module == "scenarios.report.compat_table":
        from scenarios.report.compat_table import main_parser as compat_table_parser

        return compat_table_parser(), args
    if module == "scenarios.report.query_scenarios":
        from scenarios.report.query_scenarios import main_parser as query_scenarios_parser

        return query_scenarios_parser(), args
    if module == "scenarios.report.scenario_docs":
        from scenarios.report.scenario_docs import main_parser as heads_parser

        return heads_parser(), args
    if module == "scenarios.web.tour":
        from scenarios.web.tour import main_parser as tour_parser

        return tour_parser(), args
    raise AssertionError(f"the README shows `python -m {module}`, which has no known parser")


def shown_commands(page: Path) -> list[str]:
    """Every `uv run python -m …` a page shows, in code blocks or inline code.

    Commands written as patterns (`[--from V]`, `…`, `<version>`) are left out: they are for
    reading, not for pasting.
    """
    text = page.read_text(encoding="utf-8")
    shown = [line.split(" #")[0].strip() for line in _code_blocks(text)]
    shown += [span.strip("`") for span in _INLINE_CODE.findall(text)]
    return sorted(
        {c for c in shown if c.startswith("uv run python -m ") and not re.search(r"[\[\]…<>|]", c)}
    )


def readme_commands() -> list[str]:
    return shown_commands(README)


def docs_commands() -> list[str]:
    return sorted({c for page in PAGES[1:] for c in shown_commands(page)})


def _parse(command: str) -> argparse.Namespace:
    words = shlex.split(command)[len("uv run python -m".split()) :]
    module, args = words[0], words[1:]
    parser, args = _parser_for(module, args)
    try:
        return parser.parse_args(args)
    except SystemExit as exit_:
        raise AssertionError(f"`{command}` does not parse (exit {exit_.code})") from None


def test_the_readme_shows_commands() -> None:
    modules = {shlex.split(c)[4] for c in readme_commands()}
    assert {"scenarios", "kafka_app", "spark_app"} <= modules


@pytest.mark.parametrize("command", readme_commands())
def test_readme_command_parses(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    if command.endswith(" --help"):
        with pytest.raises(SystemExit) as exit_:
            _parse(command)
        assert exit_.value.code == 0
        return
    args = _parse(command)
    known = {s.name for s in all_scenarios()}
    for name in getattr(args, "names", None) or []:
        # NAME and other capitals are placeholders for the reader to fill in.
        assert name == "all" or name.isupper() or name in known, (
            f"`{command}` names {name!r}, which is not a registered scenario"
        )


@pytest.mark.parametrize("command", docs_commands())
def test_docs_command_parses(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    test_readme_command_parses(command, capsys)


def test_a_wrong_flag_is_caught() -> None:
    with pytest.raises(AssertionError, match="does not parse"):
        _parse("uv run python -m spark_app --no-such-flag")
    with pytest.raises(AssertionError, match="does not parse"):
        _parse("uv run python -m scenarios demo --no-such-flag")


# --- the README's size and its table of scenarios ---------------------------------------------


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines < README_MAX_LINES, (
        f"README.md has {lines} lines; keep it under {README_MAX_LINES} and move detail to docs/"
    )


def scenario_table() -> list[str]:
    """The scenario names in the first column of the table under "## The scenarios"."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## The scenarios\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.split("\n") if line.startswith("|")]
    names = []
    for row in rows[2:]:  # after the header and its |---| line
        cell = row.strip("|").split("|")[0].strip()
        names.append(re.sub(r"^\[`([^`]+)`\]\(.*\)$", r"\1", cell))
    return names


def test_scenario_table_matches_the_registry() -> None:
    registered = [s.name for s in all_scenarios()]
    assert scenario_table() == registered, (
        "the README's table should name every scenario in run all's order"
    )


def test_scenario_table_is_written_from_the_code() -> None:
    text = README.read_text(encoding="utf-8")
    assert with_table(text, all_scenarios()) == text, (
        "README.md's scenarios table is stale: run uv run python -m scenarios.report.readme_table"
    )


def test_scenario_table_reading_is_checked() -> None:
    assert scenario_table()[0] == "endless-retention"


# --- the museum's table, as the docs carry it -------------------------------------------------


def museum_rows(page: Path) -> list[dict[str, str]]:
    """The rows of a page's museum table (the table whose first column is `exhibit`), each as
    {"exhibit": ticket, "<version>": cell, …} keyed by the header's versions."""
    lines = page.read_text(encoding="utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("| exhibit |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
    return rows


@pytest.mark.parametrize("page", [README, ROOT / "docs" / "spark-versions.md"])
def test_the_museum_table_in_the_docs_is_the_apps_table(page: Path) -> None:
    from spark_app.lines.known_bug_table import MUSEUM, line_of

    rows = museum_rows(page)
    tickets = [row["exhibit"].split()[0].strip("*") for row in rows]
    assert tickets and set(tickets) <= {b.ticket for b in MUSEUM}
    for row, ticket in zip(rows, tickets):
        bug = next(b for b in MUSEUM if b.ticket == ticket)
        for column, cell in row.items():
            version = re.match(r"(\d+\.\d+\.\d+)", column)
            if version is None:
                continue
            status = bug.lines.get(line_of(version.group(1)))
            first = cell.split(":")[0].split(" ")[0].strip("*")
            assert first == (status or "—"), (
                f"{page.name}: {ticket} on {column} reads {cell!r}, "
                f"the table says {status or 'nothing'}"
            )
