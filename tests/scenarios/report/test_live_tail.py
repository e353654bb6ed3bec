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


# A task's data loss as PySpark raises it on the connector: Spark's words, then the Java stack
# traces (the executor's, the driver's), which the app's one line carries flattened.
_FRAMES = "\n".join(
    "\tat java.base/java.util.concurrent.ThreadPoolExecutor$Worker.run(ThreadPoolExecutor.java:642)"
    if i % 2
    else f"\tat org.apache.spark.scheduler.Task.run(Task.scala:{140 + i})"
    for i in range(90)
)
_TASK_DATA_LOSS = (
    "Job aborted due to stage failure: org.apache.spark.SparkException: "
    "[KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE] Some data may have been lost because they are "
    "not available in Kafka any more; either the data was aged out. Reason: Could not read records "
    "in offset [24, 25) for topic partition Experience-0\nwith consumer group g-executor.\n"
    + _FRAMES
    + "\n\nDriver stacktrace:\n"
    + _FRAMES
    + " SQLSTATE: XXKST\n"
)


def _the_apps_error_line() -> str:
    from spark_app.failures.kafka import connector_data_loss

    error = connector_data_loss(_TASK_DATA_LOSS, offsets_of=lambda tp: (59, 120))
    assert error is not None
    return f"spark_app: {error}"  # as the app's CLI prints it: one line, traces flattened


def test_the_apps_one_line_error_is_shown_not_a_fragment_of_its_java_trace(
    tmp_path: Path,
) -> None:
    """An attendee's panel showed `at java.base/java.util.concurrent.ThreadPoolExecutor$Worker
    .run…` where the app's error belongs: the line is longer than the window read from the end
    of the file, which began in its middle."""
    line = _the_apps_error_line()
    assert len(line) > 8192 and "\n" not in line
    log = tmp_path / "spark-2.out"
    log.write_text(f"batch 12: Experience-0 [23, 24) rows=1 count=24\n{line}\n")

    shown = last_lines(log)
    assert shown[0] == "batch 12: Experience-0 [23, 24) rows=1 count=24"
    assert shown[1].startswith(
        "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: Could not read records in offset [24, 25)"
    )
    assert len(shown) == 2 and not any("at java" in s or "Task.run" in s for s in shown)

    console = Console(file=io.StringIO(), force_terminal=True, width=120)
    console.print(LiveTail(tmp_path))
    screen = console.file.getvalue()  # type: ignore[attr-defined]
    assert "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE" in screen
    assert "ThreadPoolExecutor" not in screen


def test_a_trace_printed_over_many_lines_leaves_its_frames_out(tmp_path: Path) -> None:
    log = tmp_path / "spark-1.out"
    log.write_text(
        "batch 3: Experience-0 [2, 3) rows=1 count=3\n"
        "spark_app: KAFKA_UNREACHABLE: Kafka at 127.0.0.1:9092 did not answer. Start it.\n"
        "java.lang.IllegalStateException: boom\n" + _FRAMES + "\n\t... 12 more\n"
        "Caused by: java.io.IOException: gone\n" + _FRAMES + "\n"
    )
    assert last_lines(log) == [
        "batch 3: Experience-0 [2, 3) rows=1 count=3",
        "KAFKA_UNREACHABLE: Kafka at 127.0.0.1:9092 did not answer. Start it.",
        "java.lang.IllegalStateException: boom",
    ]
