"""The processes' latest lines under the narration: on a terminal while a step runs, gone when
its answer comes, never off a terminal."""

from __future__ import annotations

import io
import time
from pathlib import Path

from rich.console import Console

from scenarios.engine.step import Step
from scenarios.report.live_tail import LiveTail, last_lines
from scenarios.report.narration import Narrator

STEP = Step("Kill the Spark app", happens="kill -9", question="What is lost?", answer="nothing")


def _processes(tmp_path: Path) -> Path:
    folder = tmp_path / "processes"
    folder.mkdir()
    (folder / "producer.out").write_text(
        "Experience [0:11]: 11 -> 11\nExperience [0:12]: 12 -> 12\n"
    )
    (folder / "spark-1.out").write_text("batch 7: Experience-0 [11, 12) rows=1 count=12\n")
    (folder / "empty.out").write_text("")
    return folder


def test_the_tail_shows_each_process_and_its_last_lines(tmp_path: Path) -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    console.print(LiveTail(_processes(tmp_path)))
    screen = console.file.getvalue()  # type: ignore[attr-defined]
    assert "producer" in screen and "Experience [0:12]: 12 -> 12" in screen
    assert "spark-1" in screen and "batch 7: Experience-0 [11, 12)" in screen
    assert "empty" not in screen  # a process that has said nothing takes no room


def test_last_lines_reads_the_end_of_a_long_log(tmp_path: Path) -> None:
    log = tmp_path / "a.log"
    log.write_text("".join(f"line {n}\n" for n in range(100_000)) + "\n\n")
    assert last_lines(log, 2) == ["line 99998", "line 99999"]
    assert last_lines(tmp_path / "gone.log") == []


def test_a_step_shows_the_lines_live_on_a_terminal_until_its_answer(tmp_path: Path) -> None:
    stream = io.StringIO()
    narrator = Narrator(stream=stream, rich=True)
    narrator.follow(_processes(tmp_path))
    narrator.step(STEP)
    (tmp_path / "processes" / "spark-1.out").write_text("batch 8: Experience-0 [12, 13) rows=1\n")
    time.sleep(1.2)  # two redraws of the live region
    narrator.end_step()
    screen = stream.getvalue()
    assert "batch 8: Experience-0 [12, 13)" in screen  # read again while the step ran
    answer_at = screen.index("the answer")
    assert screen.rindex("batch 8") < answer_at  # the live lines stop before the answer
    assert narrator._live is None


def test_off_a_terminal_nothing_is_redrawn(tmp_path: Path) -> None:
    stream = io.StringIO()
    narrator = Narrator(stream=stream, rich=False)
    narrator.follow(_processes(tmp_path))
    narrator.step(STEP)
    time.sleep(0.6)
    narrator.end_step()
    assert "Experience [0:12]" not in stream.getvalue()
