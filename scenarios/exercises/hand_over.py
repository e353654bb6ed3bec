"""An exercise's setup, in one place for `exercise NAME` and the tests that play it: the
situation built with a Stage, the job written as `app.sh`, and what the setup saw kept for
`--check` (setup.json and the output log as the setup left it).

Usage:
    with room(f"exercise-{exercise.name}", ws, settings, say) as stage:
        setup = hand_over(exercise, stage, ws, settings)
"""

from __future__ import annotations

from scenarios.engine.settings import RunSettings
from scenarios.engine.stage import Stage
from scenarios.exercises.exercise import Exercise
from scenarios.exercises.history import keep_output
from scenarios.exercises.workspace import Setup, Workspace

__all__ = ["hand_over"]


def hand_over(exercise: Exercise, stage: Stage, ws: Workspace, settings: RunSettings) -> Setup:
    """Build the exercise's situation, write its job and keep what --check needs."""
    facts = exercise.setup(stage)
    kafka, topic = stage.kafka.app_bootstrap_servers, stage.kafka.topic
    job = ws.job_settings(kafka, topic, source=settings.source, **exercise.job_options)
    ws.write_app_script(job)
    setup = Setup(exercise.name, settings.stack, kafka, topic, tuple(job.to_argv()), facts)
    ws.save(setup)
    keep_output(ws)
    return setup
