"""The new checkpoint's start line says whose choice the start is: the seed's earliest, or what
--starting-offsets gave (checkpoint-reset's second run gives latest)."""

from __future__ import annotations

from spark_app.cli import main_parser, settings_from_args
from spark_app.lines.start_lines import NEW_CHECKPOINT_WORDS, new_checkpoint_line


def _line(*argv: str) -> str:
    """The line as preflight prints it, for the settings the command line builds."""
    return new_checkpoint_line(
        settings_from_args(main_parser().parse_args(list(argv))).starting_offsets
    )


def test_the_default_start_is_the_seeds_earliest() -> None:
    line = _line()
    assert line.startswith(f"{NEW_CHECKPOINT_WORDS}earliest (the seed's choice")
    assert "Spark's Kafka connector defaults to latest" in line


def test_latest_given_is_not_called_the_seeds_choice() -> None:
    """checkpoint-reset's second run read "startingOffsets=latest (the seed's choice…", while
    the seed's choice is earliest."""
    line = _line("--starting-offsets", "latest")
    assert line.startswith(f"{NEW_CHECKPOINT_WORDS}latest (as given with --starting-offsets")
    assert "the seed's choice is earliest" in line
    assert "(the seed's choice" not in line


def test_offsets_given_as_json_are_the_users_too() -> None:
    line = _line("--starting-offsets", '{"Experience":{"0":42}}')
    assert '{"Experience":{"0":42}} (as given with --starting-offsets' in line
