"""An unsupported PySpark is one line naming the version found, not an ImportError traceback."""

from __future__ import annotations

import pytest

import spark_app.spark_version as spark_version
from spark_app.cli import run_cli
from spark_app.errors import SparkVersionError
from spark_app.spark_version import check_spark_version


@pytest.mark.parametrize("version", ["4.2.0", "4.2.1", "4.3.0", "4.3.0.dev1"])
def test_supported_versions_pass(version: str) -> None:
    assert check_spark_version(version) == version


@pytest.mark.parametrize("version, why", [
    ("4.1.1", "fail in applyInPandasWithState"),
    ("4.0.5", "fail in applyInPandasWithState"),
    ("3.5.3", "fail in applyInPandasWithState"),
    ("5.0.0", "tested on PySpark 4.2 to 4.x only"),
])
def test_unsupported_versions_say_which_and_why(version: str, why: str) -> None:
    with pytest.raises(SparkVersionError) as error:
        check_spark_version(version)
    assert str(error.value).startswith(f"SPARK_VERSION_UNSUPPORTED: PySpark {version} is installed")
    assert why in str(error.value)


def test_the_app_stops_with_one_line_before_importing_the_source(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(spark_version, "installed_spark_version", lambda: "4.1.1")
    assert run_cli([]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("spark_app: SPARK_VERSION_UNSUPPORTED: PySpark 4.1.1 is installed")
