"""`run -j N`: the chosen scenarios run N at a time, each as its own `python -m scenarios run
NAME` process, into one report folder.

Every scenario already has its own folders, and a topic of its own on the run's Kafka (or a
broker of its own on free ports), so two can run side by side; what they share is the machine
and that broker. The longest start first, so that none is left to run alone at the end. Each
job's narration goes to `<report>/jobs/<name>.out` (a learner follows one with `tail -f`);
this process says when each starts and ends, and when all have ended it reads their
`<name>.json` back and writes the one index.html and junit.xml.
Ctrl-C (or SIGTERM) stops every job as Ctrl-C stops a run: each cleans up what it started.

Usage: `results = run_in_jobs(scenarios, lambda name: [...argv...], 2, Path("reports"), narrator)`
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from launch.group import ProcessGroup
from launch.process import CONSOLE_SUFFIX, ManagedProcess
from scenarios.engine.scenario import Scenario, said_minutes
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.report.narration import Narrator
from scenarios.report.verdicts import ScenarioResult, read_result

__all__ = ["JOBS_FOLDER", "run_in_jobs", "result_of"]

JOBS_FOLDER = "jobs"
# Long enough for a job to stop its Spark app and Kafka the way Ctrl-C does.
STOP_SEC = 120.0


def run_in_jobs(
    scenarios: Sequence[Scenario],
    argv_of: Callable[[str], list[str]],
    jobs: int,
    report_dir: Path,
    narrator: Narrator,
) -> list[ScenarioResult]:
    """Run each scenario as `argv_of(name)`, at most `jobs` at a time, the longest first; their
    results, in the order given."""
    # Longest first (by what each says it takes), else in the order given: a long scenario
    # started last would run on alone while the other cores idle (known-bugs, last in the
    # catalog, ran 4 minutes alone at the end of `run all -j 2`).
    waiting = sorted(scenarios, key=lambda s: -said_minutes(s))
    running: dict[str, tuple[ManagedProcess, float]] = {}
    ended: dict[str, ScenarioResult] = {}
    with ProcessGroup(report_dir / JOBS_FOLDER, cwd=PROJECT_ROOT) as group:
        try:
            while waiting or running:
                while waiting and len(running) < jobs:
                    scenario = waiting.pop(0)
                    # A report of an earlier run in the same folder must not pass for this one's.
                    (report_dir / f"{scenario.name}.json").unlink(missing_ok=True)
                    running[scenario.name] = (
                        group.start(scenario.name, argv_of(scenario.name)),
                        time.monotonic(),
                    )
                    narrator.say(
                        f"job {scenario.name} started ({len(running)} running, "
                        f"{len(waiting)} waiting): "
                        f"tail -f {report_dir / JOBS_FOLDER / scenario.name}{CONSOLE_SUFFIX}"
                    )
                for name, (process, started) in list(running.items()):
                    if not process.running:
                        del running[name]
                        result = ended[name] = result_of(report_dir, name, process.returncode)
                        narrator.say(
                            f"job {name} ended: {result.verdict} in "
                            f"{time.monotonic() - started:.0f} s"
                        )
                time.sleep(0.2)
        except KeyboardInterrupt:
            for process, _ in running.values():  # as Ctrl-C would: each job cleans up
                process.terminate(timeout=STOP_SEC, sig=signal.SIGTERM)
            raise
    return [ended[s.name] for s in scenarios]


def result_of(report_dir: Path, name: str, code: int | None) -> ScenarioResult:
    """The job's `<name>.json`; if it wrote none (killed, or it broke before the scenario ran),
    an error naming the job's output."""
    path = report_dir / f"{name}.json"
    if path.exists():
        return read_result(path)
    said = f" (exit code {code})" if code is not None else ""
    return ScenarioResult(
        name,
        name,
        error=f"the job ended{said} before writing its report; "
        f"its output: {report_dir / JOBS_FOLDER / name}{CONSOLE_SUFFIX}",
    )
