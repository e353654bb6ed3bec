"""Find the `java` that runs Ivy (and whatever the callers start): `$JAVA_HOME/bin/java`, else PATH.

Usage: `java = find_java()` raises JarFetchError in one line when there is none.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from maven_jars.errors import JarFetchError

__all__ = ["find_java"]

INSTALL_HINT = "install Java 17 (`sudo apt-get install openjdk-17-jre-headless`) or set JAVA_HOME"


def find_java(what: str = "jars") -> Path:
    """The java executable; `what` names what could not be fetched or run without it."""
    home = os.environ.get("JAVA_HOME")
    if home:
        candidate = Path(home) / "bin" / "java"
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("java")
    if found is None:
        where = f"JAVA_HOME={home} has no bin/java and " if home else ""
        raise JarFetchError(what, f"{where}no `java` on PATH", INSTALL_HINT)
    return Path(found)
