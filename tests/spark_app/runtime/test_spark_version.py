"""An unsupported PySpark (or a pyarrow it cannot use) is one line naming what was found and
what to do, not an ImportError or a TypeError deep inside a Python worker."""

from __future__ import annotations

import pytest

import spark_app.runtime.spark_version as spark_version
from spark_app.cli import run_cli
from spark_app.errors import SparkVersionError
from spark_app.runtime.spark_version import check_spark_version


@pytest.mark.parametrize(
    "version, pyarrow",
    [
        ("4.0.5", "18.1.0"),
        ("4.1.4", "18.1.0"),
        ("4.2.1", "26.0.1"),
        ("4.3.0", "26.0.1"),
        ("4.3.0.dev1", "26.0.1"),
    ],
)
def test_supported_versions_pass(version: str, pyarrow: str) -> None:
    assert check_spark_version(version, pyarrow) == version


@pytest.mark.parametrize(
    "version, why",
    [
        ("3.5.3", "needs PySpark 4.0 to 4.x (Python streaming sources exist since 4.0)"),
        ("5.0.0", "needs PySpark 4.0 to 4.x"),
    ],
)
def test_unsupported_versions_say_which_and_why(version: str, why: str) -> None:
    with pytest.raises(SparkVersionError) as error:
        check_spark_version(version, "26.0.1")
    assert str(error.value).startswith(f"SPARK_VERSION_UNSUPPORTED: PySpark {version} is installed")
    assert why in str(error.value)


@pytest.mark.parametrize("version", ["4.0.5", "4.1.1"])
def test_an_older_line_with_a_new_pyarrow_names_the_fix(version: str) -> None:
    with pytest.raises(SparkVersionError) as error:
        check_spark_version(version, "26.0.1")
    text = str(error.value)
    assert f"PySpark {version} with pyarrow 26.0.1" in text
    assert "'pyarrow<19'" in text and f"--spark {version}" in text


def test_the_app_stops_with_one_line_before_importing_the_source(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(spark_version, "installed_spark_version", lambda: "3.5.3")
    assert run_cli([]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("spark_app: SPARK_VERSION_UNSUPPORTED: PySpark 3.5.3 is installed")
