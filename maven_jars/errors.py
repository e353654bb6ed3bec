"""The one error of the jar fetcher: `str(error)` is the line a user sees.

Usage: `raise JarFetchError("org.apache.kafka:kafka_2.13:9.9.9", "not served by Maven Central",
"try 4.1.2")` reads "cannot fetch org.apache.kafka:kafka_2.13:9.9.9: not served by Maven Central;
try 4.1.2". Callers add what works without the jars (e.g. "`--kafka embedded` runs offline")
with `error.with_hint(...)`.
"""

from __future__ import annotations

__all__ = ["JarFetchError"]


class JarFetchError(Exception):
    """Jars could not be fetched: what (`coordinate`), why (`cause`), and what to do (`hint`)."""

    def __init__(self, coordinate: str, cause: str, hint: str = "") -> None:
        self.coordinate, self.cause, self.hint = coordinate, cause, hint
        line = f"cannot fetch {coordinate}: {cause}"
        super().__init__(f"{line}; {hint}" if hint else line)

    def with_hint(self, hint: str) -> JarFetchError:
        """The same error with the caller's advice appended (`raise e.with_hint(...) from e`)."""
        joined = f"{self.hint}, or {hint}" if self.hint else hint
        return JarFetchError(self.coordinate, self.cause, joined)
