"""The code archive cluster executors import spark_app from: every module of every sub-package.

Executors on a cluster import our Kafka source (spark_app/source/) from this zip, not from the
project folder; a module left out fails only there, and only on a cluster.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import spark_app
from spark_app.runtime.session import _code_archive


def test_the_archive_holds_every_module_of_spark_app_and_its_sub_packages(tmp_path: Path) -> None:
    package = Path(spark_app.__file__).resolve().parent
    on_disk = {f"spark_app/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")}

    with zipfile.ZipFile(_code_archive(tmp_path)) as archive:
        zipped = set(archive.namelist())

    assert "spark_app/source/kafka_source.py" in zipped
    assert zipped == on_disk
