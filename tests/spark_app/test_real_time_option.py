"""`--trigger real-time` is offered where Real-time Mode can run and refused in one line where
it cannot, before Spark starts: on a PySpark line before 4.2, and with a duration under Spark's
minimum. A query Spark refuses as it starts is named in Spark's words (spark_app/failures/)."""

from __future__ import annotations

import pytest

import spark_app.query.chosen as chosen
from spark_app.cli import main_parser, run_cli, settings_from_args
from spark_app.errors import RealTimeRefusedError
from spark_app.failures import explain_failure
from spark_app.settings import SparkAppSettings


def test_real_time_takes_a_duration_and_an_output_topic_and_keeps_them_in_argv() -> None:
    argv = ["--trigger", "real-time", "--real-time-sec", "7", "--output-topic", "Out"]
    settings = settings_from_args(main_parser().parse_args(argv))
    assert (settings.trigger, settings.real_time_sec, settings.output_topic) == (
        "real-time",
        7.0,
        "Out",
    )
    assert settings_from_args(main_parser().parse_args(settings.to_argv())) == settings
    default = settings_from_args(main_parser().parse_args(["--trigger", "real-time"]))
    assert default.real_time_sec == 5.0 and default.output_topic is None


@pytest.mark.parametrize(
    ("version", "argv", "words", "code"),
    [
        ("4.1.1", [], ["PySpark 4.1.1 has no trigger(realTime=...)", "4.2.0"], 1),
        ("4.0.0", ["--real-time-sec", "10"], ["PySpark 4.0.0 has no trigger(realTime=...)"], 1),
        # A duration under the minimum is the command's fault: bad input, exit 2.
        ("4.2.0", ["--real-time-sec", "2"], ["--real-time-sec 2 is under", "minimum of 5 s"], 2),
    ],
)
def test_where_real_time_mode_cannot_run_the_app_says_so_in_one_line_before_spark(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    version: str,
    argv: list[str],
    words: list[str],
    code: int,
) -> None:
    monkeypatch.setattr(chosen, "installed_spark_version", lambda: version)
    started: list[object] = []
    monkeypatch.setattr("spark_app.query.app.SparkSessionResource", started.append)
    assert run_cli(["--trigger", "real-time", *argv]) == code
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("spark_app: REAL_TIME_MODE_UNAVAILABLE: ")
    assert all(w in err for w in words), err
    assert started == []


def test_the_other_triggers_are_not_judged_by_real_time_modes_rules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chosen, "installed_spark_version", lambda: "4.0.0")
    assert chosen.query_for(SparkAppSettings(real_time_sec=1.0)) is not None
    with pytest.raises(Exception, match="REAL_TIME_MODE_UNAVAILABLE"):
        chosen.query_for(SparkAppSettings(trigger="real-time"))


# Spark's refusal of the counter as PySpark 4.2.0 raised it, run 29 Nov (spark-versions.md).
COUNTER_REFUSAL = (
    "[STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST] Streaming real-time mode has "
    "the following limitation: The sink(s): "
    "org.apache.spark.sql.execution.streaming.sources.ForeachBatchSink is not in the sink "
    "allowlist for Real-Time Mode. To bypass this check, set "
    "spark.sql.streaming.realTimeMode.allowlistCheck to false. By changing this, you agree to "
    "run the query at your own risk. SQLSTATE: 0A000\n\tat org.apache.spark.sql.execution..."
)


def test_spark_refusing_a_query_in_real_time_mode_is_one_line_in_its_words() -> None:
    real_time = SparkAppSettings(trigger="real-time")
    error = explain_failure(Exception(COUNTER_REFUSAL), real_time)
    line = str(error)
    assert isinstance(error, RealTimeRefusedError) and "\n" not in line
    assert line.startswith(
        "REAL_TIME_MODE_REFUSED: [STREAMING_REAL_TIME_MODE.OPERATOR_OR_SINK_NOT_IN_ALLOWLIST] "
    )
    assert "ForeachBatchSink is not in the sink allowlist" in line
    assert "--output-topic" in line  # what runs instead
    # Under another trigger the same words are not Real-time Mode's refusal.
    assert not isinstance(
        explain_failure(Exception(COUNTER_REFUSAL), SparkAppSettings()), RealTimeRefusedError
    )
