"""A user's query module loaded and refused as a user meets it: one line naming the file and what
to change, before Spark starts (no Spark here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_app.errors import QueryModuleError
from spark_app.query.user_query import load_query

GALLERY = sorted((Path(__file__).resolve().parents[3] / "queries").glob("*.py"))


def module(tmp_path: Path, text: str, name: str = "mine.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("path", GALLERY, ids=[p.stem for p in GALLERY])
def test_every_gallery_query_loads_with_a_mode_and_a_key(path: Path) -> None:
    query = load_query(path)
    assert query.OUTPUT_MODE in ("append", "update", "complete")
    assert query.KEY and all(isinstance(c, str) for c in query.KEY)
    assert query.name == path.stem


def test_the_gallery_holds_what_production_runs() -> None:
    assert {p.stem for p in GALLERY} >= {
        "count_per_key",
        "window_count",
        "dedup",
        "dedup_within_watermark",
        "stream_static_join",
        "stream_stream_join",
        "sessions",
    }


@pytest.mark.parametrize(
    "text, says",
    [
        ("import nosuchmodule\n", "does not import: ModuleNotFoundError: No module named"),
        ("OUTPUT_MODE = 'update'\nKEY = ['k']\n", "has no build(records) function"),
        ("OUTPUT_MODE = 'replace'\ndef build(r):\n    return r\n", "OUTPUT_MODE is 'replace'"),
        ("OUTPUT_MODE = 'update'\ndef build(r):\n    return r\n", "has no KEY: in update mode"),
        (
            "OUTPUT_MODE = 'update'\nKEY = 'bucket'\ndef build(r):\n    return r\n",
            "KEY is 'bucket'",
        ),
    ],
)
def test_a_module_that_cannot_run_is_one_line_naming_the_file(
    tmp_path: Path, text: str, says: str
) -> None:
    path = module(tmp_path, text)
    with pytest.raises(QueryModuleError) as raised:
        load_query(path)
    line = str(raised.value)
    assert line.startswith(f"QUERY_MODULE: {path}: ") and says in line and "\n" not in line
    assert raised.value.exit_code == 2


def test_an_append_query_may_leave_its_key_out(tmp_path: Path) -> None:
    query = load_query(module(tmp_path, "OUTPUT_MODE = 'append'\ndef build(r):\n    return r\n"))
    assert query.KEY == ()


def test_a_file_that_is_not_there_is_named(tmp_path: Path) -> None:
    with pytest.raises(QueryModuleError, match="no such file"):
        load_query(tmp_path / "missing.py")


def test_the_app_refuses_a_bad_module_in_one_line_and_exit_2_before_anything_starts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from spark_app.cli import run_cli

    path = module(tmp_path, "OUTPUT_MODE = 'update'\ndef build(r):\n    return r\n")
    code = run_cli(
        [
            "--query",
            str(path),
            "--log-dir",
            str(tmp_path / "log"),
            "--checkpoint-dir",
            str(tmp_path / "cp"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "has no KEY" in err[0]
    assert not (tmp_path / "cp").exists()
