"""What a live page published, kept for a test to read: the stand-in for its server's publish.

Usage:
    frames = Frames()
    page = RunPage(frames, [])            # the page publishes each frame into `frames`
    frames.last.find(...)                 # the newest frame, parsed
"""

from __future__ import annotations

from tests.scenarios.report.html_tree import Element, parse

__all__ = ["Frames"]


class Frames:
    """A server's publish, kept."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def publish(self, html: str) -> None:
        self.shown.append(html)

    @property
    def last(self) -> Element:
        return parse(self.shown[-1])
