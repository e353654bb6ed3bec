"""The generated pages' command body: write, or only check, or refuse a page without markers."""

from __future__ import annotations

from pathlib import Path

import pytest

from scenarios.report.rewrite import rewrite_or_check


def upper(text: str) -> str:
    if "<!--" not in text:
        raise ValueError("the page has lost its markers")
    return text.upper()


def test_check_says_stale_and_writes_nothing_then_a_rewrite_makes_it_fresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- x --> old\n")
    assert rewrite_or_check(page, upper, True, "the page is", "run it") == 1
    assert capsys.readouterr().out == "the page is stale: run it\n"
    assert page.read_text() == "<!-- x --> old\n"
    assert rewrite_or_check(page, upper, False, "the page is", "run it") == 0
    assert page.read_text() == "<!-- X --> OLD\n"
    assert rewrite_or_check(page, upper, True, "the page is", "run it") == 0
    assert capsys.readouterr().out == "the page is fresh\n"


def test_a_page_without_markers_is_one_line_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "page.md"
    page.write_text("written by hand\n")
    assert rewrite_or_check(page, upper, False, "the page is", "run it") == 2
    assert capsys.readouterr().err == "the page has lost its markers\n"
    assert page.read_text() == "written by hand\n"
