"""The demo's screen and status line, rendered into text as a user would read them."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from rich.text import Text

from scenarios.demo.state import (
    CheckpointView,
    Verdict,
    initial_state,
    on_producer_line,
    on_spark_exit,
    on_spark_line,
    on_spark_signal,
    on_spark_started,
    with_checkpoint,
    with_event,
    with_retention,
    with_verdict,
)
from scenarios.demo.view import render, retention_label, status_line
from spark_app.failures.kafka import connector_data_loss
from spark_app.runtime.class_cache import saved_line, writing_line


def _screen(state: object, width: int = 160) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(render(state))  # type: ignore[arg-type]
    return console.file.getvalue()  # type: ignore[attr-defined]


def _running_state():
    state = initial_state(15)
    for value in range(1, 13):
        state = on_producer_line(state, f"Experience [0:{value}]: {value} -> {value}")
    state = on_spark_started(state, pid=4242)
    state = on_spark_line(state, "batch 9: Experience-0 [9, 11) rows=2 count=11 took 50 ms")
    state = with_verdict(state, Verdict(True, "every message exactly once: 11 of 1..11 seen"))
    return with_checkpoint(
        state, CheckpointView("last committed batch 9: a restart resumes at Experience-0@11", 9)
    )


def test_screen_shows_both_apps_verdict_checkpoint_and_keys() -> None:
    screen = _screen(_running_state())
    assert "earliest:latest  0:12" in screen
    assert "Experience [0:12]: 12 -> 12" in screen
    assert "up (pid 4242)" in screen
    assert "last batch 9   count 11" in screen
    assert "OK  every message exactly once" in screen
    assert "checkpoint last committed batch 9" in screen
    assert "retention 15 s" in screen
    for key in ("Enter", "kill -9", "delete checkpoint", "change retention", "quit"):
        assert key in screen


def _screen_at(retention_sec: int, choices: tuple[int, ...]) -> str:
    state = initial_state(retention_sec, "log/spark.log", choices)
    return _screen(on_producer_line(state, "Experience [0:1]: 1 -> 1"))


def test_the_hour_at_start_says_a_discussion_is_safe_and_t_leads_to_the_race() -> None:
    screen = _screen_at(3600, (3600, 15))
    assert "retention 1 h" in screen
    assert "the app may stay down while you talk; t: 15 s, the race" in screen
    assert " t  retention to 15 s (the race)" in screen


def test_the_seeds_15_s_says_it_is_the_race_and_t_leads_back() -> None:
    screen = _screen_at(15, (3600, 15))
    assert "retention 15 s" in screen
    assert "the retention race: down too long, a restart finds its offsets gone; t: 1 h" in screen
    assert " t  retention to 1 h " in screen
    assert "t  retention to 1 h (the race)" not in screen


def test_both_apps_panels_keep_one_height_with_the_retention_line() -> None:
    state = initial_state(3600, "log/spark.log", (3600, 15))
    for value in range(1, 20):
        state = on_producer_line(state, f"Experience [0:{value}]: {value} -> {value}")
        state = on_spark_line(state, f"batch {value}: Experience-0 [0, {value}) rows=1")
    rows = _screen(on_spark_started(state, pid=1)).splitlines()
    bottoms = [row for row in rows if row.count("╰") == 2]
    assert bottoms, "the two panels end on one row"


def test_screen_after_kill_says_down_and_why() -> None:
    state = on_spark_exit(on_spark_signal(_running_state(), "SIGKILL"), -9)
    state = with_event(state, "k: kill -9 of the Spark app's process group (pid 4242)")
    screen = _screen(state)
    assert "down: killed (kill -9)" in screen
    assert "Spark app up" not in screen
    assert "- k: kill -9 of the Spark app's process group (pid 4242)" in screen


def test_figures_fall_back_to_the_files_when_the_console_has_none() -> None:
    state = on_spark_started(_running_state(), pid=5)  # a new run has printed nothing yet
    state = with_verdict(state, Verdict(True, "ok", final_count=11))
    assert "last batch 9   count 11" in _screen(state)


def test_a_bad_verdict_shows_its_details() -> None:
    state = with_verdict(
        initial_state(15), Verdict(False, "missing 3 (4..6)", ("missing 3 value(s): 4..6",))
    )
    screen = _screen(state)
    assert "NOT OK  missing 3 (4..6)" in screen
    assert "missing 3 value(s): 4..6" in screen


def test_status_line_has_the_same_facts_in_plain_words() -> None:
    line = status_line(with_retention(_running_state(), 3600))
    assert line.startswith("producer up [0:12] retention 1 h | spark up batch 9 count 11 | ")
    assert "verdict OK every message exactly once" in line
    assert line.endswith("checkpoint last committed batch 9: a restart resumes at Experience-0@11")


def test_retention_label() -> None:
    assert [retention_label(s) for s in (15, 60, 90, 3600, 7200)] == [
        "15 s",
        "1 min",
        "90 s",
        "1 h",
        "2 h",
    ]


def _last_words_panel(screen: str) -> tuple[list[str], str]:
    """The failure panel's rows, and its text with the borders and line breaks taken out."""
    panel = screen[screen.index("Spark app's last words") : screen.index("Output log verdict")]
    rows = panel.splitlines()[:-1]  # the verdict panel's top border ends it
    return rows, " ".join(row.strip(" │╭╮╰╯─") for row in rows)


def test_the_apps_last_words_are_shown_after_a_failure_with_where_the_rest_is() -> None:
    reason = (
        "spark_app: KAFKA_UNREACHABLE: no Kafka broker answers at 127.0.0.1:9092. Start one "
        "with `python -m kafka_app` or pass --bootstrap-servers HOST:PORT."
    )
    state = on_spark_started(initial_state(15, "run/log/spark.log"), pid=7)
    state = on_spark_line(on_spark_line(state, "Traceback (most recent call last):"), reason)
    state = on_spark_exit(state, 1)
    screen = _screen(state, width=100)
    assert "down: failed" in screen
    words = _last_words_panel(screen)[1]
    assert reason.removeprefix("spark_app: ") in words  # short: shown whole, remedy included
    assert "The whole message and Spark's trace: run/log/spark.log" in words
    assert "last words" not in _screen(on_spark_started(state, pid=8))


# A task's data-loss failure as PySpark raises it on the connector: Spark's words, then the
# executor's and the driver's Java stack traces, and only then the SQLSTATE.
_FRAMES = "\n".join(
    f"\tat org.apache.spark.sql.kafka010.consumer.KafkaDataConsumer.get(KafkaDataConsumer"
    f".scala:{100 + i})"
    if i % 2
    else f"\tat org.apache.spark.scheduler.Task.run(Task.scala:{140 + i})"
    for i in range(90)
)
_TASK_DATA_LOSS = (
    "[STREAM_FAILED] Query [id = 5c34, runId = be67] terminated with exception: Job aborted due "
    "to stage failure: Task 0 in stage 41.0 failed 1 times, most recent failure: Lost task 0.0 in "
    "stage 41.0 (TID 41) (127.0.0.1 executor driver): org.apache.spark.SparkException: "
    "[KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE] Some data may have been lost because they are "
    "not available in Kafka any more;\neither the data was aged out by Kafka or the topic may have "
    "been deleted before all the data in the\ntopic was processed.\nIf you don't want your "
    "streaming query to fail on such cases, set the source option failOnDataLoss to false.\n"
    "Reason: Could not read records in offset [33, 40) for topic partition Experience-0\nwith "
    "consumer group spark-kafka-source-e5e2-1861636880-executor.\n"
    + _FRAMES
    + "\n\nDriver stacktrace:\n"
    + _FRAMES
    + " SQLSTATE: XXKST\n=== Streaming Query ===\n"
)


def test_a_data_loss_with_the_whole_java_trace_shows_condition_and_remedy_in_a_short_panel() -> (
    None
):
    error = connector_data_loss(_TASK_DATA_LOSS, offsets_of=lambda tp: (38, 60))
    assert error is not None
    line = f"spark_app: {error}"  # the app's last line, as its CLI prints it
    assert len(line) > 5000 and "\n" not in line  # the traces, flattened into the one line
    state = on_spark_started(initial_state(15, "log/spark.log"), pid=7)
    state = on_spark_exit(on_spark_line(state, line), 1)

    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
    console.print(render(state))
    screen = Text.from_ansi(console.file.getvalue()).plain  # type: ignore[attr-defined]
    rows, words = _last_words_panel(screen)

    assert len(rows) <= 7, "\n".join(rows)
    assert (
        "KAFKA_DATA_LOSS.COULD_NOT_READ_OFFSET_RANGE: Could not read records in offset [33, 40)"
        in words
    )
    assert (
        "What to do: Kafka's earliest offset of Experience-0 is now 38, so offsets [33, 38) are "
        "gone"
    ) in words
    assert "restart with --fail-on-data-loss false" in words
    assert "The whole message and Spark's trace: log/spark.log" in words
    assert "KafkaDataConsumer" not in screen


def test_the_spark_panel_says_while_the_class_archive_is_being_saved_and_once_it_is() -> None:
    archive = Path("/home/me/.cache/checkpoint-experience/spark-4.2.0-0123456789abcdef.jsa")
    state = on_spark_line(_running_state(), writing_line(archive, 4243))
    assert "class archive: saving…" in _screen(state)

    killed = on_spark_started(on_spark_exit(on_spark_signal(state, "SIGKILL"), -9), pid=4300)
    assert "class archive: sav" not in _screen(killed)  # the writer died with its app

    saved = on_spark_line(state, saved_line(archive, 61))
    assert "class archive: saved" in _screen(saved)
    assert "class archive: saved" in _screen(on_spark_started(saved, pid=4301))
