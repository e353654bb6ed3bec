"""Each scenario's story read from its code, and the pages rendered from it, kept fresh."""

from __future__ import annotations

from pathlib import Path

from scenarios.registry import all_scenarios
from scenarios.report.diagrams import DIAGRAMS, render_all
from scenarios.report.story import questions_markdown, written_steps

DOCS = Path(__file__).resolve().parents[3] / "docs"


def test_every_scenario_has_its_steps_read_from_its_code() -> None:
    by_scenario = {w.scenario for w in written_steps()}
    assert by_scenario == {s.name for s in all_scenarios()}
    first = next(w for w in written_steps() if w.scenario == "checkpoint-reset")
    assert first.step.title == "Start Kafka and the producer" and first.step.question


def test_the_question_sheet_is_rendered_from_the_code_and_not_stale() -> None:
    page = DOCS / "workshop-questions.md"
    assert page.read_text() == questions_markdown(), (
        "docs/workshop-questions.md is stale: uv run python -m scenarios.report.story > "
        "docs/workshop-questions.md"
    )


def test_the_diagrams_render_and_the_workshop_shows_each(tmp_path: Path) -> None:
    written = render_all(tmp_path)
    assert [p.name for p in written] == list(DIAGRAMS)
    workshop = (DOCS / "workshop.md").read_text()
    for path in written:
        assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 10_000
        assert (DOCS / "img" / path.name).exists(), (
            "run: uv run python -m scenarios.report.diagrams docs/img"
        )
        assert f"img/{path.name}" in workshop


def test_each_scenarios_walk_through_opens_with_its_story_from_the_code() -> None:
    """docs/scenarios.md's head of every scenario is what its SCENARIO and Steps say."""
    from scenarios.registry import all_scenarios
    from scenarios.report.scenario_docs import PAGE, with_heads

    text = PAGE.read_text(encoding="utf-8")
    assert with_heads(text, all_scenarios(), written_steps()) == text, (
        "docs/scenarios.md is stale: run uv run python -m scenarios.report.scenario_docs"
    )


def test_a_walk_through_without_its_markers_is_named_and_the_page_left_alone() -> None:
    import pytest

    from scenarios.registry import all_scenarios
    from scenarios.report.scenario_docs import with_heads

    with pytest.raises(ValueError, match="no block for endless-retention"):
        with_heads("## endless-retention\n\nwritten by hand\n", all_scenarios(), written_steps())
