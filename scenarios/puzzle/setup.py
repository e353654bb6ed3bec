"""`puzzle --seed S`'s setup: the job run and broken by the seed's fault, handed over in a folder.

The fault breaks the checkpoint (faults.py); the job is written as `job.sh`, with the options the
fault gives it (a release the checkpoint refuses), and what the setup saw is kept for `--check`:
the seed, the facts the fault returned, and the options `--check` needs the job to keep (the
puzzle's Kafka, checkpoint and log, where the check reads its verdict). The story printed after
it is the same for every fault: it must not say which one.

Usage:
    with room("puzzle", ws, settings, say, quiet=True) as stage:
        setup = hand_over(stage, ws, seed, settings)
        print("\\n".join(story_lines(ws, setup)))
"""

from __future__ import annotations

from scenarios.engine.settings import RunSettings
from scenarios.engine.stage import Stage
from scenarios.exercises.history import keep_output
from scenarios.exercises.workspace import Setup, Workspace
from scenarios.puzzle import fault_for

__all__ = ["STORY", "hand_over", "story_lines"]

STORY = (
    "This is a streaming job and its checkpoint. It ran for a while and was stopped; since "
    "then it does not restart correctly.",
    "  the job:        {job} (edit its last line to change the job; --check runs it as it stands)",
    "  its checkpoint: {checkpoints}/",
    "  its logs:       {log}/ (the output log, spark.log, the exactly-once sink's journal)",
    "Diagnose it: start the job (sh {job}) and read its last line; uv run python -m spark_app "
    "inspect --checkpoint-dir {checkpoints} --bootstrap-servers {kafka}; the cheat-sheet "
    "(docs/workshop.md#cheat-sheet).",
    "Repair it (the checkpoint, the job's options in {job}, or both), so that it continues "
    "exactly once if it can; then, with the job stopped: uv run python -m scenarios puzzle "
    "--check",
    "--check runs the job for a few batches and says whether it continues exactly once, and "
    "what was lost if the repair was a reset.",
)


def hand_over(stage: Stage, ws: Workspace, seed: int, settings: RunSettings) -> Setup:
    """Break the job as seed `seed` draws, write job.sh and what --check needs; return it."""
    fault = fault_for(seed)
    facts = fault.setup(stage)
    kafka, topic = stage.kafka.app_bootstrap_servers, stage.kafka.topic
    fixed = ws.job_settings(kafka, topic, source=settings.source)
    job = ws.job_settings(kafka, topic, source=settings.source, **fault.job_options)
    ws.write_app_script(job, more_options=False)
    facts = {**facts, "seed": seed, "fixed_args": fixed.to_argv()}
    setup = Setup("puzzle", settings.stack, kafka, topic, tuple(job.to_argv()), facts)
    ws.save(setup)
    keep_output(ws)
    return setup


def story_lines(ws: Workspace, setup: Setup) -> list[str]:
    """What the first terminal prints once the puzzle is handed over."""
    return [
        line.format(
            job=ws.app_script,
            checkpoints=ws.checkpoints,
            log=ws.log,
            kafka=setup.bootstrap_servers,
        )
        for line in STORY
    ]
