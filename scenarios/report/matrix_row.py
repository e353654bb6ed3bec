"""One row of a comparison page: a check (or a scenario's verdict, or a figure) across the
columns of a matrix run, a cell per column, and whether the columns differ.

The engine's matrix (scenarios/run/matrix.py) fills the rows; the report (pages.py, and the
matrix's console table) shows them. The row lives with what shows it, so the report needs
nothing from the engine.

Usage: `MatrixRow("chaos", "verdict", {"4.0.0": "PASS", "4.2.0": "FAIL"}).differs`  # True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["MatrixRow", "FIGURE_RATIO"]

# A figure (a duration) differs when the slowest is this much slower than the fastest: runs of
# one version on this machine scatter by a third, so smaller gaps would only show the noise.
FIGURE_RATIO = 1.5


@dataclass(frozen=True)
class MatrixRow:
    """One check (or a scenario's verdict, or a figure) across the versions: a cell per version."""

    scenario: str
    check: str
    cells: dict[str, str]
    figures: dict[str, float] | None = None

    @property
    def differs(self) -> bool:
        """Outcomes differ when they read differently with their counts left out (how many
        messages a run got through depends on timing, not on Spark); figures by FIGURE_RATIO."""
        if self.figures is not None:
            values = [v for v in self.figures.values() if v > 0]
            return len(values) > 1 and max(values) > FIGURE_RATIO * min(values)
        return len({re.sub(r"\d+", "#", cell) for cell in self.cells.values()}) > 1
