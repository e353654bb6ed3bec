"""The head of each scenario's walk-through in docs/scenarios.md, written from its code.

A scenario tells its story once, in its module: what it teaches (`SCENARIO.title`), where it
comes from (`origin`), in short (`summary`), and its steps with their production rules (the
`Step(...)` calls, read by story.py). This writes that into docs/scenarios.md, between two
markers under each scenario's heading, so the page cannot tell a different story from the run.
What the page says by hand below the markers is what only a run can tell: the outcomes and
figures measured, and why they came out so. A fast test fails when a head is stale.

Usage:
    uv run python -m scenarios.report.scenario_docs            # rewrites the heads
    uv run python -m scenarios.report.scenario_docs --check    # exit 1 if one is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from scenarios.engine.scenario import Scenario
from scenarios.registry import all_scenarios
from scenarios.report.rewrite import check_parser, rewrite_or_check
from scenarios.report.story import WrittenStep, written_steps

__all__ = ["PAGE", "begin", "end", "head_lines", "with_heads", "main", "main_parser"]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "scenarios.md"
COMMAND = "uv run python -m scenarios.report.scenario_docs"


def begin(name: str) -> str:
    return f"<!-- {name}: written from its code by `{COMMAND}`; edit the scenario, not this -->"


def end(name: str) -> str:
    return f"<!-- end of {name} from its code -->"


def _sentence(text: str, capital: bool = True) -> str:
    text = " ".join(text.split())
    if capital:
        text = text[:1].upper() + text[1:]
    return text.rstrip(".") + "." if text else ""


def head_lines(scenario: Scenario, steps: Sequence[WrittenStep]) -> list[str]:
    """The block: the lesson and its origin, the summary, then each step and its rule."""
    lines = [
        f"**{_sentence(scenario.title)}** *From: {scenario.origin}.*",
        "",
        _sentence(scenario.summary),
        "",
        *(
            [f"*With `--fast` it takes {_sentence(scenario.takes, capital=False)}*", ""]
            if scenario.takes
            else []
        ),
        "The steps, as a run narrates them (`{…}`: a number the run fills in):",
        "",
    ]
    for number, written in enumerate(steps, start=1):
        step = written.step
        rule = (
            f" In production: {_sentence(step.production, capital=False)}"
            if step.production
            else ""
        )
        lines.append(f"{number}. **{_sentence(step.title)}**{rule}")
    return lines


def with_heads(page: str, scenarios: Sequence[Scenario], steps: Sequence[WrittenStep]) -> str:
    """The page with every scenario's block rewritten; a scenario whose heading or markers are
    missing is named in the error, so the page is never half-written."""
    for scenario in scenarios:
        mine = [s for s in steps if s.scenario == scenario.name]
        block = "\n".join([begin(scenario.name), *head_lines(scenario, mine), end(scenario.name)])
        pattern = re.compile(
            re.escape(begin(scenario.name)) + r".*?" + re.escape(end(scenario.name)), re.DOTALL
        )
        if not pattern.search(page):
            raise ValueError(
                f"docs/scenarios.md has no block for {scenario.name}: put the lines "
                f"{begin(scenario.name)!r} and {end(scenario.name)!r} under its heading "
                f"`## {scenario.name}`, then run {COMMAND}"
            )
        page = pattern.sub(lambda _, block=block: block, page)
    return page


def main_parser() -> argparse.ArgumentParser:
    return check_parser(
        "python -m scenarios.report.scenario_docs",
        "Write each scenario's head in docs/scenarios.md from its code.",
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = main_parser().parse_args(argv)
    return rewrite_or_check(
        PAGE,
        lambda text: with_heads(text, all_scenarios(), written_steps()),
        args.check,
        "docs/scenarios.md's scenario heads are",
        f"run {COMMAND}",
    )


if __name__ == "__main__":
    sys.exit(main())
