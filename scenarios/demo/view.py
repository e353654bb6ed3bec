"""How the demo looks: a pure function from `DemoState` to a rich renderable, and a plain line.

The Live loop in the runner only calls `render(state)`; tests render into
`Console(file=io.StringIO())` and read the text, so the screen is checked without a terminal.

Usage:
    console.print(render(state))
    print(status_line(state))
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from scenarios.demo.retention import next_retention
from scenarios.demo.state import (
    RECENT_LINES,
    DemoState,
    ProducerView,
    SparkPhase,
    SparkView,
    Verdict,
)
from scenarios.report.last_words import read_last_words

__all__ = ["KEYS_HELP", "render", "status_line", "retention_label", "retention_meaning"]

KEYS_HELP = (
    ("Enter", "negative key"),
    ("k", "kill -9 Spark"),
    ("s", "stop (SIGTERM)"),
    ("r", "restart"),
    ("d", "delete checkpoint"),
    ("t", "change retention"),  # shown with where it goes: "retention to 15 s"
    ("q", "quit"),
)


def retention_label(seconds: int) -> str:
    """15 -> '15 s', 3600 -> '1 h': the way the seed talks about retention."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


# A retention this long outlasts any discussion while the app is down: nothing ages out.
LONG_RETENTION_SEC = 600


def _after_t(state: DemoState) -> int | None:
    """The retention `t` switches to, or None when the demo did not say what it cycles."""
    choices = state.retention_choices
    if not choices:
        return None
    return next_retention(state.retention_sec, choices)


def retention_meaning(state: DemoState) -> str:
    """What the current retention means for a restart, and where `t` goes: 'the app may stay
    down while you talk; t: 15 s, the race'."""
    seconds = state.retention_sec
    if seconds >= LONG_RETENTION_SEC:
        meaning = "the app may stay down while you talk"
    else:
        meaning = "the retention race: down too long, a restart finds its offsets gone"
    after = _after_t(state)
    if after is not None and after != seconds:
        meaning += f"; t: {retention_label(after)}"
        if after < LONG_RETENTION_SEC:
            meaning += ", the race"
    return meaning


def _offsets(producer: ProducerView) -> str:
    if producer.earliest is None or producer.latest is None:
        return "earliest:latest  -:-"
    return f"earliest:latest  {producer.earliest}:{producer.latest}"


def _recent(lines: tuple[str, ...], empty: str, rows: int = RECENT_LINES) -> list[Text]:
    """The last `rows` lines, padded so both panels keep one height and the screen does not
    jump."""
    shown = [Text(line, overflow="ellipsis", no_wrap=True) for line in lines[-rows:]] or [
        Text(empty, style="dim")
    ]
    return shown + [Text("")] * (rows - len(shown))


def _producer_status(producer: ProducerView) -> str:
    if producer.up:
        return "up"
    return "starting" if producer.exit_code is None else f"down (exit {producer.exit_code})"


def _producer_panel(state: DemoState) -> Panel:
    producer = state.producer
    status = Text(
        _producer_status(producer),
        style="green" if producer.up else ("yellow" if producer.exit_code is None else "red"),
    )
    head = Text.assemble(
        "producer ",
        status,
        f"   {_offsets(producer)}   retention {retention_label(state.retention_sec)}",
    )
    negatives = (
        f"negative keys asked {producer.negatives_requested}, sent {producer.negatives_seen}"
    )
    if producer.last_negative_key is not None:
        negatives += f" (last {producer.last_negative_key})"
    # One message line fewer than the Spark panel's console lines: the retention's meaning
    # takes its row, so both panels keep one height.
    lines = _recent(producer.lines, "waiting for the first message...", RECENT_LINES - 1)
    return Panel(
        Group(
            head, Text(retention_meaning(state), style="dim"), Text(negatives, style="dim"), *lines
        ),
        title="Kafka producer",
        border_style="blue",
    )


def _spark_status(spark: SparkView) -> Text:
    style = (
        "green"
        if spark.phase is SparkPhase.RUNNING
        else ("yellow" if spark.phase in (SparkPhase.STOPPING, SparkPhase.NOT_STARTED) else "red")
    )
    label = spark.phase.value
    if spark.phase is SparkPhase.RUNNING and spark.pid is not None:
        label = f"up (pid {spark.pid})"
    return Text(label, style=style)


def _figures(state: DemoState) -> tuple[str, str]:
    """Last batch and count: from the console while it says, else from the files on disk."""
    batch = (
        state.spark.last_batch
        if state.spark.last_batch is not None
        else state.checkpoint.last_batch
    )
    count = state.spark.count if state.spark.count is not None else state.verdict.final_count
    return ("-" if batch is None else str(batch)), ("-" if count is None else str(count))


def _spark_panel(state: DemoState) -> Panel:
    spark = state.spark
    batch, count = _figures(state)
    head = Text.assemble("Spark app ", _spark_status(spark))
    figures = Text(f"last batch {batch}   count {count}   starts {spark.starts}")
    if spark.class_archive == "writing" and spark.phase.is_up:
        # Until it is saved, a restart starts without it: seconds slower, which counts in the
        # retention race (15 s).
        figures.append("   class archive: saving…", style="yellow")
    elif spark.class_archive == "saved":
        figures.append("   class archive: saved", style="dim")
    lines = _recent(spark.lines, "no console output yet")
    return Panel(Group(head, figures, *lines), title="Spark app", border_style="magenta")


def _verdict_text(verdict: Verdict) -> Text:
    if verdict.ok is None:
        return Text(verdict.headline, style="yellow")
    return Text(
        ("OK  " if verdict.ok else "NOT OK  ") + verdict.headline,
        style="bold green" if verdict.ok else "bold red",
    )


def _verdict_panel(verdict: Verdict) -> Panel:
    details = [Text(line, overflow="ellipsis", no_wrap=True) for line in verdict.details]
    return Panel(
        Group(_verdict_text(verdict), *details),
        title="Output log verdict",
        border_style="green" if verdict.ok else ("red" if verdict.ok is False else "yellow"),
    )


def _last_words_panel(line: str, spark_log: str) -> Panel:
    """The app's last line, short: the condition and what happened on one line, the remedy, and
    where the full text and Spark's trace are (the line itself may hold the whole trace)."""
    words = read_last_words(line)
    head = (
        Text.assemble((words.condition, "bold red"), ": ", words.what)
        if words.condition
        else Text(words.what)
    )
    body = [head]
    if words.remedy:
        head.no_wrap, head.overflow = True, "ellipsis"
        body.append(Text.assemble(("What to do: ", "bold"), words.remedy))
    body.append(Text(f"The whole message and Spark's trace: {spark_log}", style="dim"))
    return Panel(
        Group(*body), title="Spark app's last words", title_align="left", border_style="red"
    )


def _keys_line(state: DemoState) -> Text:
    text = Text()
    after = _after_t(state)
    for key, action in KEYS_HELP:
        if key == "t" and after is not None:
            action = f"retention to {retention_label(after)}"
            if after < LONG_RETENTION_SEC:
                action += " (the race)"
        text.append(f" {key} ", style="reverse")
        text.append(f" {action}  ")
    return text


def render(state: DemoState) -> RenderableType:
    """The whole screen for one state: apps side by side, then verdict, checkpoint, events, keys."""
    apps = Table.grid(expand=True)
    apps.add_column(ratio=1)
    apps.add_column(ratio=1)
    apps.add_row(_producer_panel(state), _spark_panel(state))
    checkpoint = Text.assemble(
        ("checkpoint ", "bold"), Text(state.checkpoint.summary, overflow="ellipsis")
    )
    last_words = (
        [_last_words_panel(state.spark.last_words, state.spark_log)]
        if state.spark.last_words
        else []
    )
    events = [
        Text(f"- {event}", style="dim", overflow="ellipsis", no_wrap=True) for event in state.events
    ]
    page = [Text(f"live page: {state.page_url}", style="bold")] if state.page_url else []
    return Group(
        apps,
        *last_words,
        _verdict_panel(state.verdict),
        checkpoint,
        *events,
        _keys_line(state),
        *page,
    )


def status_line(state: DemoState) -> str:
    """One plain line for a log or a pipe: the same facts as the screen, without colour."""
    producer, spark = state.producer, state.spark
    offsets = "-:-" if producer.latest is None else f"{producer.earliest}:{producer.latest}"
    verdict = (
        state.verdict.headline
        if state.verdict.ok is None
        else (f"{'OK' if state.verdict.ok else 'NOT OK'} {state.verdict.headline}")
    )
    batch, count = _figures(state)
    return (
        f"producer {_producer_status(producer)} [{offsets}] "
        f"retention {retention_label(state.retention_sec)} | "
        f"spark {spark.phase.value} batch {batch} count {count} | "
        f"verdict {verdict} | checkpoint {state.checkpoint.summary}"
    )
