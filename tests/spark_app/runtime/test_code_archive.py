"""The code archive cluster executors import spark_app from: every module of every sub-package,
and of the project's packages spark_app imports.

Executors on a cluster import our Kafka source (spark_app/source/) and the crash on a record
(spark_app/query/record_crash.py) from this zip, not from the project folder; a module left out
fails only there, and only on a cluster.
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path

import spark_app
from spark_app.runtime.session import SHIPPED_PACKAGES, _code_archive

ROOT = Path(spark_app.__file__).resolve().parents[1]


def test_the_archive_holds_every_module_of_the_shipped_packages(tmp_path: Path) -> None:
    on_disk = {
        p.relative_to(ROOT).as_posix()
        for name in SHIPPED_PACKAGES
        for p in (ROOT / name).rglob("*.py")
    }
    with zipfile.ZipFile(_code_archive(tmp_path)) as archive:
        zipped = set(archive.namelist())
    assert {"spark_app/source/kafka_source.py", "maven_jars/cache.py"} <= zipped
    assert zipped == on_disk


def test_every_project_package_a_shipped_module_imports_is_shipped() -> None:
    """A worker imports what the shipped modules import: the project's own packages among them
    must be in the zip too (maven_jars was not, and a query's crash on a record failed)."""
    projects = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    imported = set()
    for name in SHIPPED_PACKAGES:
        for source in (ROOT / name).rglob("*.py"):
            for node in ast.walk(ast.parse(source.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    imported.add(node.module.split(".")[0])
                elif isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
    assert (imported & projects) - set(SHIPPED_PACKAGES) == set()
