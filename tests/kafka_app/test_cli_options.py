"""Every numeric option of `python -m kafka_app` and `... broker` refuses nan, inf and negatives.

Each bad value must give exit code 2 and one line on stderr naming the option, before anything
starts (no broker, no log file), so a typo cannot leave a spinning or never-firing loop behind.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_app.broker.cli import run_cli as broker_cli
from kafka_app.cli import run_cli

APP_FLOATS = [
    "--retention-sec",
    "--segment-sec",
    "--interval-sec",
    "--retention-check-sec",
    "--retention-initial-delay-sec",
]
BROKER_FLOATS = ["--retention-check-sec", "--retention-initial-delay-sec"]


def _one_line(err: str, option: str) -> None:
    assert option in err, err
    assert err.count("\n") == 1, err


FLOAT_CASES = [
    (run_cli, option, value) for option in APP_FLOATS for value in ["nan", "inf", "-inf", "-1"]
] + [(broker_cli, option, value) for option in BROKER_FLOATS for value in ["nan", "inf", "-1"]]


@pytest.mark.parametrize(("cli", "option", "value"), FLOAT_CASES)
def test_float_options_refuse_nan_inf_negative(
    cli: Callable[[list[str]], int],
    option: str,
    value: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli([f"{option}={value}", "--log-dir", str(tmp_path / "log")]) == 2
    _one_line(capsys.readouterr().err, option)
    assert not (tmp_path / "log").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [("--count", "-3"), ("--segment-bytes", "-1"), ("--partitions", "-2"), ("--port", "-1")],
)
def test_app_int_options_refuse_negative(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli([f"{option}={value}"]) == 2
    _one_line(capsys.readouterr().err, option)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--port", "-1"),
        ("--max-frame-bytes", "-5"),
        ("--retention-check-sec", "0"),
        ("--max-connections", "0"),
        ("--max-partitions", "0"),
    ],
)
def test_broker_int_options_refuse_out_of_range(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert broker_cli([f"{option}={value}"]) == 2
    _one_line(capsys.readouterr().err, option)


@pytest.mark.parametrize("option", ["--log-dir", "--data-dir"])
def test_a_file_given_as_folder_is_one_line(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    assert broker_cli([option, str(a_file)]) == 2
    _one_line(capsys.readouterr().err, option)
    assert run_cli([option, str(a_file)]) == 2
    _one_line(capsys.readouterr().err, option)


def test_a_damaged_data_folder_is_one_line_exit_1_and_left_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "topics.json").write_text('{"topics": {"../escape": {"partitions": 1}}}')
    assert (
        broker_cli(["--data-dir", str(data), "--port", "0", "--log-dir", str(tmp_path / "log")])
        == 1
    )
    err = capsys.readouterr().err
    assert "topics.json lists an illegal topic" in err and err.count("\n") == 1, err
    assert sorted(p.name for p in data.iterdir()) == ["topics.json"]
    assert not (tmp_path / "escape-0").exists()
