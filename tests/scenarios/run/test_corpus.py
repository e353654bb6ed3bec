"""A corpus cell is written and read by one owner (scenarios/run/corpus.py): a round trip."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from kafka_app.sent_records import SentRecord
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.errors import ScenarioError
from scenarios.run.corpus import MANIFEST, QUERY, Manifest, keep, read_corpus


def _checkpoint(folder: Path) -> Path:
    (folder / "offsets").mkdir(parents=True)
    (folder / "offsets" / "0").write_text('v1\n{"Experience-x":{"0":20}}\n')
    (folder / "state" / "0" / "0").mkdir(parents=True)
    (folder / "state" / "0" / "0" / "1.delta").write_bytes(b"\x00\x01")
    return folder


def test_a_kept_checkpoint_reads_back_as_it_was_written(tmp_path: Path) -> None:
    source = _checkpoint(tmp_path / "run" / "checkpoint")
    records = [
        SentRecord("Experience-x", 0, n, 1764410000000 + n, None, str(n + 1)) for n in range(25)
    ]
    manifest = Manifest(
        cell="counter-rocksdb-format-2-4.0.0-to-4.2.0",
        line="4.0.0",
        query=str(PROJECT_ROOT / "queries" / "counter.py"),
        store="rocksdb",
        format=2,
        committed_offset=20,
        settings={"state_store": "rocksdb", "checkpoint_format": 2},
    )
    rows = tmp_path / "run" / "query-output"
    rows.mkdir()
    (rows / "batch-00000000.jsonl").write_text('{"batch_id": 0, "bucket": 1, "records": 4}\n')
    keep(tmp_path / "corpus", manifest, source, records, rows)
    [kept] = read_corpus(tmp_path / "corpus")
    # The module travels with its checkpoint: the manifest names the cell's copy of it.
    copy = tmp_path / "corpus" / manifest.cell / QUERY
    assert kept.manifest == replace(manifest, query=str(copy))
    assert copy.read_text() == Path(manifest.query).read_text()
    assert list(kept.records) == records
    assert (kept.checkpoint / "offsets" / "0").read_text() == (source / "offsets" / "0").read_text()
    assert (kept.checkpoint / "state" / "0" / "0" / "1.delta").read_bytes() == b"\x00\x01"
    # The writing line's rows travel with it: a restart joins its own to them.
    assert kept.rows is not None
    assert (kept.rows / "batch-00000000.jsonl").read_text() == (
        rows / "batch-00000000.jsonl"
    ).read_text()


def test_a_cell_cut_short_before_its_manifest_is_passed_by(tmp_path: Path) -> None:
    source = _checkpoint(tmp_path / "checkpoint")
    manifest = Manifest(
        "dedup-hdfs-4.2.0-to-4.0.0",
        "4.2.0",
        str(PROJECT_ROOT / "queries" / "dedup.py"),
        "hdfs",
        1,
        7,
    )
    keep(tmp_path / "corpus", manifest, source, [], tmp_path / "no-rows-written")
    (tmp_path / "corpus" / "cut-short" / "checkpoint").mkdir(parents=True)
    [kept] = read_corpus(tmp_path / "corpus")
    assert kept.manifest.cell == manifest.cell
    # A line that wrote no row before its stop: kept as an empty folder, not as "not kept".
    assert kept.rows is not None and not any(kept.rows.iterdir())


def test_a_corpus_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no kept checkpoint in it"):
        read_corpus(tmp_path)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / MANIFEST).write_text('{"cell": "bad"}')
    with pytest.raises(ScenarioError, match="not a corpus manifest"):
        read_corpus(tmp_path)


def test_check_change_corpus_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    for args in (["--corpus", str(tmp_path)], ["--corpus", str(tmp_path), "--to", "3.5.1"]):
        done = subprocess.run(
            [sys.executable, "-m", "scenarios", "check-change", *args],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and done.stdout == ""
