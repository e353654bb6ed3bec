"""Write a page the code renders, or only say whether it is stale: the one body of the commands
that keep generated parts of the docs fresh (the README's scenario table, docs/scenarios.md's
heads).

Usage: `return rewrite_or_check(README, lambda text: with_table(text, …), args.check,
                                "README.md's scenarios table is", "run the command above")`
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["check_parser", "replace_block", "rewrite_or_check"]


def check_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The command line of a page's renderer: write the page, or `--check` whether it is stale."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--check", action="store_true", help="only say whether the page is stale")
    return parser


def replace_block(text: str, begin: str, end: str, lines: Sequence[str], page: str) -> str:
    """`text` with the block between the marker lines `begin` and `end` replaced by `lines`; a
    ValueError names the markers when either is lost."""
    if begin not in text or end not in text:
        raise ValueError(
            f"{page} has lost a rendered block's markers; put back the two lines {begin!r} and "
            f"{end!r} where the block goes"
        )
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return "\n".join([head + begin, *lines, end]) + tail


def rewrite_or_check(
    page: Path, render: Callable[[str], str], check: bool, what: str, stale_hint: str
) -> int:
    """Render `page` anew from its text. With `check`, print whether it is stale (exit 1) or
    fresh (0) and write nothing; otherwise write it (0). A ValueError from `render` (markers
    missing) is printed and exits 2, the page untouched."""
    text = page.read_text(encoding="utf-8")
    try:
        fresh = render(text)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    if check:
        stale = fresh != text
        print(f"{what} " + (f"stale: {stale_hint}" if stale else "fresh"))
        return 1 if stale else 0
    page.write_text(fresh, encoding="utf-8")
    return 0
