"""Runs scenarios one after another, each in its own folders, and collects their results.

A scenario that raises a ScenarioError (a wait that timed out, a process that died when it
should not have) ends with the verdict "error" and the next one still runs. Ctrl-C stops the
run after cleaning up the scenario in progress.

Usage: `results = run_scenarios(find_scenarios(["all"]), RunSettings(), Narrator())`
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from scenarios.errors import ScenarioError
from scenarios.narration import Narrator
from scenarios.registry import Scenario
from scenarios.report import ScenarioResult, write_reports
from scenarios.settings import RunSettings
from scenarios.stage import Stage

__all__ = ["run_scenario", "run_scenarios"]


def run_scenarios(scenarios: Sequence[Scenario], settings: RunSettings,
                  narrator: Narrator) -> list[ScenarioResult]:
    base = settings.report_dir or Path(tempfile.mkdtemp(prefix="scenarios-"))
    results = []
    for scenario in scenarios:
        results.append(run_scenario(scenario, settings, narrator, base / scenario.name))
        if settings.report_dir is not None:
            write_reports(results, settings.report_dir)
    return results


def run_scenario(scenario: Scenario, settings: RunSettings, narrator: Narrator,
                 root: Path) -> ScenarioResult:
    """Run one scenario in `root` (wiped first); its timeline goes next to `root` as a PNG."""
    result = ScenarioResult(scenario.name, scenario.title)
    narrator.transcript.clear()
    narrator.begin(scenario.name, scenario.title, scenario.summary)
    started = time.monotonic()
    stage = Stage(scenario.name, settings, narrator, root)
    try:
        with stage:
            scenario.run(stage)
    except ScenarioError as error:
        result.error = f"{type(error).__name__}: {error}"
        narrator.say(f"ERROR {result.error}")
    finally:
        result.duration_sec = time.monotonic() - started
        result.checks = list(stage.checks)
        result.facts = dict(stage.facts) | {"timeline": stage.timeline.to_dict(),
                                            "run_dir": str(root)}
        result.transcript = list(narrator.transcript)
        png = root.parent / f"{scenario.name}.png"
        stage.timeline.render(png, f"{scenario.name}: {scenario.title}")
        result.artifacts = {"timeline": str(png), "run_dir": str(root),
                            "output_log": str(stage.folders.output_log)}
    return result
