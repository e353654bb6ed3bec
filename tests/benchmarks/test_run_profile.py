"""run_profile.py: a run's report folder in, where each scenario's time went out."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.run_profile import main, read_rows, table_lines


def _report(folder: Path, name: str, duration: float, spent: dict) -> None:
    (folder / f"{name}.json").write_text(
        json.dumps({"name": name, "duration_sec": duration, "facts": {"time_spent": spent}})
    )


def test_each_scenario_is_split_into_starts_stops_and_the_rest(tmp_path: Path, capsys) -> None:
    _report(
        tmp_path,
        "chaos",
        100.0,
        {
            "kafka start": {"count": 1, "sec": 7.0},
            "spark start": {"count": 4, "sec": 40.0, "max_sec": 13.0},
            "spark stop": {"count": 1, "sec": 3.0},
            "spark start without output": {"count": 1},
        },
    )
    _report(tmp_path, "endless-retention", 50.0, {"kafka start": {"count": 1, "sec": 6.0}})
    (tmp_path / "matrix.json").write_text("[]")
    rows = read_rows(tmp_path)
    assert [r.scenario for r in rows] == ["endless-retention", "chaos"]  # run all's order
    chaos = rows[1]
    assert (chaos.kafka_sec, chaos.spark_sec, chaos.stop_sec, chaos.rest) == (7.0, 40.0, 3.0, 50.0)
    lines = table_lines(rows)
    assert lines[-2].split()[:2] == ["TOTAL", "150"]
    assert "4/40 (13) +1" in lines[2]
    assert lines[-1].startswith("shares: Kafka starts 9%, Spark starts 27%")
    assert main([str(tmp_path)]) == 0 and "TOTAL" in capsys.readouterr().out


def test_a_folder_without_reports_is_one_line(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_scenario_past_the_bound_shows_what_it_says_of_its_time(monkeypatch) -> None:
    from benchmarks import run_profile
    from scenarios.engine.scenario import LONG_RUN_SEC, Scenario

    def scenario(name: str, takes: str = "") -> Scenario:
        return Scenario(name, "t", "s", "o", run=lambda stage: None, takes=takes)

    monkeypatch.setattr(
        run_profile,
        "all_scenarios",
        lambda: [
            scenario("soak", "about 3 min: 270 batches"),
            scenario("quiet"),
            scenario("quick"),
        ],
    )
    rows = [
        run_profile.Row("soak", 170.0),
        run_profile.Row("quiet", LONG_RUN_SEC + 1.0),
        run_profile.Row("quick", LONG_RUN_SEC - 1.0),
    ]
    assert run_profile.long_run_lines(rows) == [
        f"over {LONG_RUN_SEC} s: soak 170 s, says: about 3 min: 270 batches",
        f"over {LONG_RUN_SEC} s: quiet 91 s, SAYS NOTHING (Scenario.takes)",
    ]
