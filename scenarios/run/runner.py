"""Runs scenarios one after another, each in its own folders, and collects their results.

A scenario that raises anything (a wait that timed out, a process that died when it should
not have, an AssertionError in a helper, a damaged checkpoint) ends with the verdict "error",
its one-line cause in the table and its traceback in the JSON report, and the next one still
runs. Only Ctrl-C (and SIGTERM/SIGHUP, which the command line turns into it) stops the run,
after cleaning up the scenario in progress.

Usage: `results = run_scenarios(find_scenarios(["all"]), RunSettings(), Narrator())`
(`listeners=[page.hear]`: more listeners of each stage's events, before the narrator's, such as
the live page of `--web`)
"""

from __future__ import annotations

import shutil
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kafka_app.apache.jars import DEFAULT_VERSION as DEFAULT_KAFKA_VERSION
from launch.process import CONSOLE_SUFFIX
from scenarios.engine.events import Listener
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings
from scenarios.engine.stage import Stage
from scenarios.engine.stage.kafka import brokers_unavailable
from scenarios.engine.stage.store import store_unavailable
from scenarios.report.narration import Narrator
from scenarios.report.pages import write_index
from scenarios.report.timeline import render as render_timeline
from scenarios.report.verdicts import ScenarioResult, write_reports
from scenarios.run.class_archive import archive_in_background
from scenarios.run.shared_kafka import shared_kafka
from spark_app.settings import SparkAppSettings

__all__ = ["run_folder", "run_scenario", "run_scenarios"]


def run_scenarios(
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    listeners: Sequence[Listener] = (),
) -> list[ScenarioResult]:
    results: list[ScenarioResult] = []
    with run_folder(settings.report_dir) as base:
        narrator.announce(_where_to_watch(base, kept=settings.report_dir is not None))
        with (
            shared_kafka(scenarios, settings, base, narrator) as settings,
            archive_in_background(settings, base) as before_each_scenario,
        ):
            _run_each(scenarios, settings, narrator, base, results, before_each_scenario, listeners)
    return results


def _run_each(
    scenarios: Sequence[Scenario],
    settings: RunSettings,
    narrator: Narrator,
    base: Path,
    results: list[ScenarioResult],
    before_each: Callable[[], None] = lambda: None,
    listeners: Sequence[Listener] = (),
) -> None:
    """Run the scenarios in turn into `results`, reports written after each."""
    for scenario in scenarios:
        before_each()
        results.append(run_scenario(scenario, settings, narrator, base / scenario.name, listeners))
        if settings.report_dir is not None:  # after each scenario: a long run shows progress
            write_reports(results, settings.report_dir)
            write_index(results, settings.report_dir)


@contextmanager
def run_folder(report_dir: Path | None) -> Iterator[Path]:
    """The run's folder: `report_dir`, kept; or a temporary one, removed however the run ends.

    Ctrl-C, SIGTERM and SIGHUP reach here as KeyboardInterrupt (see cli.py), so they remove it
    too; only a kill -9 of the runner itself leaves it behind.
    """
    if report_dir is not None:
        report_dir.mkdir(parents=True, exist_ok=True)
        yield report_dir
        return
    base = Path(tempfile.mkdtemp(prefix="scenarios-"))
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _where_to_watch(base: Path, *, kept: bool) -> str:
    """The line that lets a learner follow what the narration's "Watch" names, live."""
    fate = "kept" if kept else "removed at the end; --report DIR keeps it"
    return (
        f"run folder {base} ({fate}): each process's console is in "
        f"<scenario>/processes/<name>{CONSOLE_SUFFIX}, e.g. "
        f"`tail -f {base}/<scenario>/processes/*{CONSOLE_SUFFIX}`"
    )


def run_scenario(
    scenario: Scenario,
    settings: RunSettings,
    narrator: Narrator,
    root: Path,
    listeners: Sequence[Listener] = (),
) -> ScenarioResult:
    """Run one scenario in `root` (wiped first); its timeline goes next to `root` as an SVG."""
    result = ScenarioResult(
        scenario.name,
        scenario.title,
        spark_version=settings.spark_version,
        stack=settings.stack,
        kafka_version=kafka_version_of(settings),
        summary=scenario.summary,
    )
    narrator.transcript.clear()
    narrator.begin(scenario.name, scenario.about or scenario.title)
    unavailable = brokers_unavailable(settings, scenario.kafka_brokers) or store_unavailable(
        settings, scenario.checkpoint_stores
    )
    if unavailable is not None:  # checked before the stage starts anything
        result.skipped = unavailable
        narrator.say(f"SKIPPED {unavailable}")
        result.transcript = list(narrator.transcript)
        return result
    started = time.monotonic()
    stage = Stage(scenario.name, settings, root, listeners=[*listeners, narrator.hear])
    try:
        with stage:
            scenario.run(stage)
    except Exception as error:  # every failure becomes this scenario's verdict, not the run's end
        _record_error(result, error, narrator)
    finally:
        result.duration_sec = time.monotonic() - started
        result.checks = list(stage.checks)
        query = {"query": str(settings.query)} if settings.query is not None else {}
        result.facts = (
            dict(stage.facts)
            | query
            | {
                "timeline": stage.timeline.to_dict(),
                "run_dir": str(root),
                "time_spent": _time_spent(stage),
            }
        )
        result.transcript = list(narrator.transcript)
        result.narration = list(narrator.narration)
        result.artifacts = {"run_dir": str(root), "output_log": str(stage.folders.output_log)}
    narrator.conclude(scenario.title, scenario.summary)
    _render_timeline(result, stage, scenario, root.parent / f"{scenario.name}.svg", narrator)
    return result


def kafka_version_of(settings: RunSettings) -> str:
    """The Apache Kafka a run's scenarios start (none: the embedded broker, or one given)."""
    if settings.kafka != "apache" or settings.bootstrap_servers:
        return ""
    return settings.kafka_version or DEFAULT_KAFKA_VERSION


def _time_spent(stage: Stage) -> dict[str, dict[str, float]]:
    """Where the time went (a profile, not a verdict: an unreadable log must not fail the run)."""
    try:
        query_output = (
            SparkAppSettings(log_dir=stage.folders.log).query_output if stage.query else None
        )
        return stage.spent.summary(stage.folders.output_log, query_output)
    except OSError:
        return {}


def _record_error(result: ScenarioResult, error: BaseException, narrator: Narrator) -> None:
    result.error = _one_line(error)
    result.traceback = traceback.format_exc()
    narrator.say(f"ERROR {result.error}")


def _render_timeline(
    result: ScenarioResult, stage: Stage, scenario: Scenario, picture: Path, narrator: Narrator
) -> None:
    """The picture is a report of the run: failing to draw it is that scenario's error."""
    try:
        render_timeline(stage.timeline, picture, f"{scenario.name}: {scenario.title}")
        result.artifacts["timeline"] = str(picture)
    except Exception as error:
        if result.error is None:
            _record_error(result, error, narrator)


def _one_line(error: BaseException) -> str:
    """`Type: first line of the message`; the whole text stays in the traceback."""
    first = str(error).strip().splitlines()[0] if str(error).strip() else "(no message)"
    return f"{type(error).__name__}: {first}"
