"""How the app subscribes: one topic, a list, or a pattern; bad values refused in one line
before Spark starts, in the connector's words where it has them."""

from __future__ import annotations

import pytest

from spark_app.cli import main_parser, settings_from_args
from spark_app.query.source_choice import source_options
from spark_app.source.options import SourceOptions


def _options(*argv: str) -> dict[str, str]:
    return source_options(settings_from_args(main_parser().parse_args(list(argv))))


def test_a_list_of_topics_is_one_subscribe_option_our_source_reads_as_two_topics() -> None:
    options = _options("--topic", "Experience,Experience-more", "--offline")
    assert (
        options["subscribe"] == "Experience,Experience-more" and "subscribePattern" not in options
    )
    assert SourceOptions.parse(options).subscription.topics == ("Experience", "Experience-more")


def test_a_pattern_replaces_subscribe() -> None:
    options = _options("--subscribe-pattern", "Experience.*")
    assert options["subscribePattern"] == "Experience.*" and "subscribe" not in options


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--topic", " , "], "No topics to subscribe to as specified value for option 'subscribe'"),
        (["--subscribe-pattern", ""], "Pattern to subscribe is empty"),
        (["--subscribe-pattern", "Exp(.*"], "is not a valid pattern"),
    ],
)
def test_bad_subscriptions_are_refused_in_one_line(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main_parser().parse_args(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and words in err[-1]
