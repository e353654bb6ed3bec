"""One step of a scenario's story: what happens, the question asked before it runs, its answer.

A scenario tells its story as steps, each a `Step` with its words, and runs each step's actions
and checks inside it:

    with stage.step(Step("Kill the Spark app", happens="kill -9 …", question="…", answer="…")):
        stage.app.kill()
        stage.expect(check(...))   # this check belongs to the step

The words are the lesson: `question` is a prediction a learner can make before the step runs,
`answer` what the step's checks then show, `why` the Spark or Kafka rule behind it and
`production` what to do about it in a real job. The engine carries a step to whoever listens
(scenarios/engine/events.py); the report decides how it looks.

Usage: `Step("Restart the app", happens="…", question="Will it fail?", answer="Yes: …")`
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Step"]


@dataclass(frozen=True)
class Step:
    """One narrated step of a scenario, and the words that teach it."""

    title: str
    happens: str
    watch: str = ""
    why: str = ""
    production: str = ""
    question: str = ""
    answer: str = ""

    def asked(self) -> list[tuple[str, str]]:
        """What is shown before the step runs: nothing that gives the answer away."""
        return _labelled([("What happens", self.happens), ("Question", self.question)])

    def revealed(self) -> list[tuple[str, str]]:
        """What is shown once the step's checks are on screen (`watch` often names the outcome)."""
        return _labelled(
            [
                ("Answer", self.answer),
                ("Watch", self.watch),
                ("Why", self.why),
                ("In production", self.production),
            ]
        )

    def sections(self) -> list[tuple[str, str]]:
        return self.asked() + self.revealed()


def _labelled(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(label, text) for label, text in pairs if text]
