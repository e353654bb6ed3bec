"""The trigger and the rate limits: `--trigger`, `--min-offsets-per-trigger`,
`--max-trigger-delay` reach the source as the connector's options, and bad values are refused
in one line before Spark starts, in the connector's words where it has them."""

from __future__ import annotations

import pytest

from spark_app.cli import main_parser, run_cli, settings_from_args
from spark_app.query.source_choice import source_options
from spark_app.source.options import SourceOptions


def _options(*argv: str) -> dict[str, str]:
    return source_options(settings_from_args(main_parser().parse_args(list(argv))))


def test_the_default_trigger_is_processing_time_with_no_limits() -> None:
    settings = settings_from_args(main_parser().parse_args([]))
    assert settings.trigger == "processing-time"
    assert not {"maxOffsetsPerTrigger", "minOffsetsPerTrigger", "maxTriggerDelay"} & set(_options())


def test_the_limits_are_the_connectors_options_and_parse_as_it_does() -> None:
    options = _options(
        "--max-offsets-per-trigger",
        "5000",
        "--min-offsets-per-trigger",
        "2000",
        "--max-trigger-delay",
        "30s",
        "--offline",
    )
    assert (
        options["maxOffsetsPerTrigger"],
        options["minOffsetsPerTrigger"],
        options["maxTriggerDelay"],
    ) == ("5000", "2000", "30s")
    parsed = SourceOptions.parse(options)
    assert (
        parsed.max_offsets_per_trigger,
        parsed.min_offsets_per_trigger,
        parsed.max_trigger_delay_ms,
    ) == (5000, 2000, 30_000)


def test_available_now_is_a_trigger_not_a_source_option() -> None:
    settings = settings_from_args(main_parser().parse_args(["--trigger", "available-now"]))
    assert settings.trigger == "available-now"
    assert not any("vailable" in key for key in source_options(settings))


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--trigger", "once"], "invalid choice: 'once'"),
        (["--min-offsets-per-trigger", "0"], "expected a positive number, got 0"),
        (
            ["--max-trigger-delay", "soon"],
            "Time must be specified as seconds (s), milliseconds (ms)",
        ),
        (["--max-trigger-delay", "5 weeks"], "Failed to parse time string: 5 weeks"),
    ],
)
def test_bad_values_are_one_line_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main_parser().parse_args(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and words in err[-1]


def test_a_minimum_above_the_maximum_is_the_connectors_refusal_before_spark(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run_cli(["--min-offsets-per-trigger", "500", "--max-offsets-per-trigger", "100"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and len(err) == 1
    assert (
        "The value of minOffsetPerTrigger(500) is higher than the maxOffsetsPerTrigger(100)."
        in err[0]
    )
