"""The workshop's doctor: one line per finding, saying what to do; exit 1 only when it cannot run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scenarios import doctor
from scenarios.cli import run_cli
from scenarios.doctor import (
    DiskNeed,
    Finding,
    cores_finding,
    disk_finding,
    disk_findings,
    first_run_needs,
    memory_finding,
    platform_finding,
    port_finding,
    python_finding,
    terminal_finding,
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
    assert disk_finding([DiskNeed(Path("/x"), 2.5, "uv's cache")], 0.5).level == "problem"
    assert (
        port_finding(9092, False).level == "warning"
        and "ss -ltnp" in port_finding(9092, False).what
    )
    short = disk_finding([DiskNeed(Path("/x"), 2.5, "uv's cache")], 0.5)
    for finding in (python_finding((3, 9)), cores_finding(1), short):
        assert "\n" not in finding.line() and finding.line().startswith("PROBLEM ")


def test_a_platform_without_proc_is_a_problem_naming_it_and_the_readmes_real_section() -> None:
    mac = platform_finding("darwin", missing=["/proc"])
    assert mac.level == "problem" and "has no /proc" in mac.what
    assert "stop at once" in mac.what and "WSL2" in mac.what
    untested = platform_finding("freebsd14", missing=[])
    assert untested.level == "warning"
    # README.md has no section "Platforms"; its "Quick start" names the platforms.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "## Quick start" in readme and "Linux" in readme.split("## Quick start")[1][:400]
    for finding in (mac, untested):
        assert "README.md, Quick start" in finding.what and "Platforms" not in finding.what


def test_the_disk_a_first_run_needs_is_summed_per_disk() -> None:
    """spark-upgrade's PySpark leaves about 2.4 GB in uv's cache: a laptop whose caches share
    one disk needs room for all of them there, not 2 GiB per folder."""
    home, tmp = Path("/home/me"), Path("/tmp")
    needs = first_run_needs(home / ".cache/uv", home / ".cache/checkpoint-experience", tmp, False)
    assert [n.gib for n in needs][:3] == [2.5, 1.5, 1.0]
    one_disk = disk_findings(needs, device_of=lambda folder: 1, free_gib_of=lambda folder: 4.0)
    assert [f.level for f in one_disk] == ["problem"]
    assert "a first run needs 5.5 GiB there" in one_disk[0].what
    assert "uv's cache: spark-upgrade's PySpark 4.0.0" in one_disk[0].what
    assert "\n" not in one_disk[0].line()
    tmp_apart = disk_findings(
        needs, device_of=lambda folder: 2 if folder == tmp else 1, free_gib_of=lambda folder: 4.0
    )
    assert [f.level for f in tmp_apart] == ["problem", "ok"]  # 4.5 GiB on one, 1 on the other
    made = first_run_needs(home / ".cache/uv", home / ".cache/checkpoint-experience", tmp, True)
    assert sum(n.gib for n in made) == 3.0  # the environment is made: uv's cache holds it


def test_the_terminal_the_demo_and_guided_need() -> None:
    assert terminal_finding(True, True, "xterm-256color", (160, 50)).level == "ok"
    piped = terminal_finding(False, True, "xterm", (160, 50))
    assert piped.level == "warning" and "not a terminal" in piped.what
    assert "run them in a terminal window" in piped.what
    assert "does not wait for Enter" in piped.what
    assert "TERM is dumb" in terminal_finding(True, True, "dumb", (80, 24)).what
    small = terminal_finding(True, True, "xterm", (80, 24))
    assert small.level == "warning" and "80x24" in small.what and "100x30" in small.what


def test_offline_works_here_and_a_failure_is_one_line(monkeypatch) -> None:
    assert doctor.offline_finding().level == "ok"

    import kafka_app.broker

    def broken(*_: object, **__: object) -> object:
        raise OSError("Address already in use\nmore")

    monkeypatch.setattr(kafka_app.broker, "EmbeddedBroker", broken)
    failed = doctor.offline_finding()
    assert failed.level == "warning" and "\n" not in failed.line()
    assert "--offline does not work here (OSError: Address already in use)" in failed.what


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
    monkeypatch.setattr(doctor, "offline_finding", lambda: Finding("ok", "--offline works"))
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
