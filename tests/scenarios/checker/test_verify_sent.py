"""The verifier held against what was sent: crafted output logs and records, each the trouble a
user would meet (the last message lost, a value never sent, retention cutting the topic)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scenarios.checker.expectations import exactly_once
from scenarios.checker.sent_record import SentRecord
from scenarios.checker.verify import ValueRange, verify, verify_sent
from scenarios.cli import run_cli

STAMP = "[INFO] [2016-01-08 16:18:10,025] [StreamingOutput]: "
PRODUCER = "[INFO] [2026-11-23 02:31:33,163] [kafka_app.producer]: "


def output(values: list[int]) -> list[str]:
    """An output log writing `values` in order, the counts running 1, 2, 3…"""
    return [
        line
        for count, value in enumerate(values, start=1)
        for line in (f"{STAMP}Count = {count}\n", f"{STAMP}Experience: {value} -> {value}\n")
    ]


def sent(*values: int, deleted: int = 0, foreign: int = 0) -> SentRecord:
    return SentRecord("test", values, foreign=foreign, deleted=deleted)


def producer_log(values: range, topic: str = "Experience") -> str:
    return "".join(f"{PRODUCER}{topic} [0:{v}]: {v} -> {v}\n" for v in values)


def test_the_last_message_lost_is_missing_only_against_what_was_sent() -> None:
    # Issue 9: values 1..10 written, value 11 sent and lost; the output log alone looks fine.
    report = verify(output(list(range(1, 11))))
    assert report.ok
    held = verify_sent(report, sent(*range(1, 12)))
    assert held.missing == (ValueRange(11, 11),) and not held.ok
    assert held.sent is not None and held.sent.messages == 11 and held.sent.highest == 11
    assert "missing 1 value(s): 11" in held.summary_lines()


def test_everything_sent_written_once_is_ok_and_says_so() -> None:
    held = verify_sent(verify(output([1, 2, 3])), sent(1, 2, 3))
    assert held.ok and held.missing == () and held.duplicated == {}
    assert held.summary_lines()[0] == "OK: every message sent exactly once, counts consistent"


def test_a_value_written_but_never_sent_is_reported_and_not_ok() -> None:
    held = verify_sent(verify(output([1, 2, 3, 99])), sent(1, 2, 3))
    assert held.exactly_once and not held.ok
    assert held.sent is not None and held.sent.not_sent == (ValueRange(99, 99),)
    assert any("written but never sent 1 value(s): 99" in line for line in held.summary_lines())


def test_values_not_sent_do_not_count_as_missing() -> None:
    # The producer continued after 4 (a topic that held 1..4 before this log began).
    held = verify_sent(verify(output([5, 6, 7])), sent(5, 6, 7))
    assert held.ok and verify(output([5, 6, 7])).missing == (ValueRange(1, 4),)


def test_duplicates_count_against_how_often_a_value_was_sent() -> None:
    # A producer restarted on an emptied topic sent 1 twice: two lines of 1 are right.
    held = verify_sent(verify(output([1, 1, 2, 2])), sent(1, 1, 2))
    assert held.duplicated == {2: 2} and held.missing == ()
    assert held.sent is not None and held.sent.resent == {1: 2}
    short = verify_sent(verify(output([1, 2])), sent(1, 1, 2))
    assert short.missing == (ValueRange(1, 1),)


def test_a_topic_cut_by_retention_cannot_vouch_for_values_below_it() -> None:
    # The topic holds 6..10 (5 deleted); 1..5 written earlier are unchecked, 42 is above it.
    held = verify_sent(verify(output([*range(1, 11), 42])), sent(*range(6, 11), deleted=5))
    assert held.sent is not None
    assert held.sent.unchecked == 5 and held.sent.not_sent == (ValueRange(42, 42),)
    assert held.sent.messages == 10
    assert any("--sent log/kafka.log" in line for line in held.summary_lines())


def test_foreign_values_sent_are_counted_apart() -> None:
    held = verify_sent(verify(output([1, 2])), sent(1, 2, foreign=3))
    assert held.ok and held.sent is not None and held.sent.foreign == 3
    assert held.sent.messages == 5


def test_the_json_keeps_its_fields_and_adds_sent() -> None:
    plain = verify(output([1, 2])).to_dict()
    held = verify_sent(verify(output([1, 2])), sent(1, 2, 3)).to_dict()
    assert set(held) == set(plain) and plain["sent"] is None
    assert held["missing"] == [[3, 3]] and held["ok"] is False
    assert held["sent"]["messages"] == 3 and held["sent"]["not_sent"] == []


def test_exactly_once_needs_every_message_sent_when_the_report_knows_them() -> None:
    report = verify(output(list(range(1, 11))))
    assert exactly_once(report, 10).held
    lost = exactly_once(verify_sent(report, sent(*range(1, 12))), 10)
    assert not lost.held and "sent 11" in lost.actual
    assert exactly_once(verify_sent(report, sent(*range(1, 11))), 10).held


def test_cli_reports_the_last_message_lost_from_the_producers_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "streaming-output.log"
    log.write_text("".join(output(list(range(1, 11)))))
    kafka_log = tmp_path / "kafka.log"
    kafka_log.write_text(
        "[INFO] [2026-11-23 02:31:33,100] [kafka_app.broker]: listening\n"
        + producer_log(range(1, 12))
    )
    assert run_cli(["verify", str(log)]) == 0
    capsys.readouterr()
    assert run_cli(["verify", str(log), "--sent", str(kafka_log), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["missing"] == [[11, 11]] and report["sent"]["messages"] == 11


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--sent", "MISSING"], "cannot read the producer's log"),
        (
            ["--sent", "KAFKA_LOG", "--topic", "Other"],
            "only for Experience; name the topic with --topic",
        ),
        (["--sent", "OUTPUT"], "is it the Kafka app's kafka.log?"),
    ],
)
def test_cli_says_in_one_line_what_is_wrong_with_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    log = tmp_path / "streaming-output.log"
    log.write_text("".join(output([1, 2])))
    (tmp_path / "kafka.log").write_text(producer_log(range(1, 3)))
    names = {"MISSING": tmp_path / "nope.log", "KAFKA_LOG": tmp_path / "kafka.log", "OUTPUT": log}
    argv = ["verify", str(log), *[str(names.get(a, a)) for a in extra]]
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1


def test_cli_refuses_bootstrap_servers_without_the_topic_as_record(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(["verify", "--sent", "log/kafka.log", "--bootstrap-servers", "127.0.0.1:9092"])
    assert exit_.value.code == 2


def test_cli_help_says_the_producers_log_is_the_fuller_record(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        run_cli(["verify", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "records retention deleted are not there, so the producer's log is the fuller record"
        in text
    )
