"""The workshop's doctor: one line per finding, saying what to do; exit 1 only when it cannot run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scenarios import doctor
from scenarios.cli import run_cli
from scenarios.doctor import (
    Finding,
    cores_finding,
    disk_finding,
    memory_finding,
    platform_finding,
    port_finding,
    python_finding,
)


def test_each_finding_says_what_to_do_when_it_is_not_ok() -> None:
    assert platform_finding("linux").level == "ok"
    assert (
        platform_finding("darwin").level == "warning" and "Linux" in platform_finding("darwin").what
    )
    assert python_finding((3, 9)).level == "problem" and "3.10" in python_finding((3, 9)).what
    assert cores_finding(1).level == "problem" and "2 cores" in cores_finding(1).what
    assert memory_finding(1.5).level == "problem" and memory_finding(4.0).level == "warning"
    assert memory_finding(12.0).level == "ok" and memory_finding(None).level == "warning"
    assert disk_finding(Path("/x"), 0.5).level == "problem"
    assert (
        port_finding(9092, False).level == "warning"
        and "ss -ltnp" in port_finding(9092, False).what
    )
    for finding in (python_finding((3, 9)), cores_finding(1), disk_finding(Path("/x"), 0.5)):
        assert "\n" not in finding.line() and finding.line().startswith("PROBLEM ")


def test_the_machine_here_is_checked_for_real() -> None:
    """Java, the locked PySpark, cores, memory and disk of this machine (CI's runs the suite)."""
    found = doctor.machine_findings()
    whats = " ".join(f.what for f in found)
    assert "Java 17+" in whats and "PySpark 4." in whats and "cores" in whats
    assert not [f for f in found if f.level == "problem"], [f.line() for f in found]


def test_a_problem_stops_before_fetching_and_exits_1(monkeypatch, capsys) -> None:
    monkeypatch.setattr(
        doctor, "machine_findings", lambda: [Finding("problem", "1 core: give the machine 2 cores")]
    )
    monkeypatch.setattr(doctor, "prepared_findings", lambda say: pytest.fail("fetched anyway"))
    assert run_cli(["doctor"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "PROBLEM 1 core: give the machine 2 cores",
        "doctor: NOT READY: 1 problem(s), 0 warning(s)",
    ]


def test_ready_without_the_smoke_run(monkeypatch, capsys) -> None:
    monkeypatch.setattr(doctor, "machine_findings", lambda: [Finding("ok", "4 cores")])
    monkeypatch.setattr(
        doctor,
        "prepared_findings",
        lambda say: [Finding("warning", "spark-upgrade cannot run here: x")],
    )
    monkeypatch.setattr(doctor, "smoke_finding", lambda say: pytest.fail("smoke run anyway"))
    monkeypatch.setattr(doctor, "archive_finding", lambda say: Finding("ok", "archive"))
    assert run_cli(["doctor", "--no-smoke"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "doctor: ready: 0 problem(s), 1 warning(s)"


@pytest.mark.parametrize(
    "code, level, said",
    [
        (0, "ok", "is in place"),
        (3, "ok", "the first scenarios write it"),
        (1, "warning", "was not written (java said no)"),
    ],
)
def test_the_class_archive_is_written_last_and_told_as_it_went(
    monkeypatch, code: int, level: str, said: str
) -> None:
    ran: list[list[str]] = []

    def command(argv: list[str], **_: object) -> subprocess.CompletedProcess[str]:
        ran.append(argv)
        return subprocess.CompletedProcess(argv, code, "java said no\n", "")

    monkeypatch.setattr(doctor.subprocess, "run", command)
    finding = doctor.archive_finding(lambda _: None)
    assert ran == [[sys.executable, "-m", "spark_app", "class-archive"]]
    assert finding.level == level and said in finding.what, finding.line()
