"""What a restart is judged on, in check-change and on a corpus: which rows, over which records.

The case that first misled compat (docs/spark-versions.md): dedup's group 8 is the values 25,
26 and 27; the writing line read up to offset 25 and wrote group 8 before it stopped, and the
restart, which still holds group 8 in its state, does not write it again. Held to the restart's
rows alone over the records after it, group 8 reads as missing; the query's whole output over
every record is what dedup is. A stand-in oracle evaluates dedup in Python (no Spark here),
with the real oracle's reading of the sent records and lost ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_app.sent_records import SentRecord, read_sent_records
from oracle.evaluate import LostRange, kept_records
from scenarios.engine.settings import PROJECT_ROOT
from scenarios.run.check_change import ChangeRun, judged_rows
from scenarios.run.corpus import ROWS, Manifest, keep, read_corpus
from scenarios.run.corpus_check import CorpusRun, judge_kept, put_rows_back
from spark_app.lines.query_lines import QueryChecked
from spark_app.lines.query_rows import batch_file, rows_text
from spark_app.settings import SparkAppSettings

TOPIC = "Experience-corpus"
DEDUP = QueryChecked(str(PROJECT_ROOT / "queries" / "dedup.py"), "append", ("group",))
COMMITTED = 25  # the writing line's last commit: values 1 to 25 read
RECORDS = [SentRecord(TOPIC, 0, n, 1764410000000 + n, None, str(n + 1)) for n in range(30)]


def _group(record: SentRecord) -> int:
    return (int(record.value) - 1) // 3


@dataclass
class _Output:
    """The stage's oracle, evaluating dedup over the records it is given, less the lost ranges."""

    folder: Path
    lost: list[tuple[str, ...]] = field(default_factory=list)

    def evaluate(
        self, query: Path, lost: tuple[str, ...], records: Path | None, topic: str | None
    ) -> Path:
        self.lost.append(tuple(lost))
        assert records is not None and topic is not None
        read = kept_records(read_sent_records(records, topic), [LostRange.parse(t) for t in lost])
        expected = self.folder / "expected.jsonl"
        expected.write_text(rows_text({"group": g} for g in sorted({_group(r) for r in read})))
        return expected


@dataclass
class _Folders:
    log: Path
    root: Path


@dataclass
class _Stage:
    folders: _Folders
    output: _Output
    said: list[str] = field(default_factory=list)

    def say(self, line: str) -> None:
        self.said.append(line)


def _write_batches(folder: Path, batches: dict[int, list[int]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for batch_id, groups in batches.items():
        batch_file(folder, batch_id).write_text(rows_text(({"group": g} for g in groups), batch_id))


def _corpus_cell(tmp_path: Path, with_rows: bool) -> CorpusRun:
    """A dedup cell as compat --keep writes it: the writing line's rows in batches 0 to 2."""
    run_log = tmp_path / "compat-run" / "log"
    old_rows = SparkAppSettings(log_dir=run_log).query_output
    _write_batches(old_rows, {0: [0, 1, 2], 1: [3, 4, 5], 2: [6, 7, 8]})
    (tmp_path / "checkpoint" / "offsets").mkdir(parents=True)
    manifest = Manifest("dedup-hdfs-4.0.0-to-4.2.0", "4.0.0", DEDUP.path, "hdfs", 1, COMMITTED, {})
    keep(tmp_path / "corpus", manifest, tmp_path / "checkpoint", RECORDS, old_rows)
    if not with_rows:  # a cell kept before corpora kept the writing line's rows
        for path in sorted((tmp_path / "corpus" / manifest.cell / ROWS).iterdir()):
            path.unlink()
        (tmp_path / "corpus" / manifest.cell / ROWS).rmdir()
    [kept] = read_corpus(tmp_path / "corpus")
    return CorpusRun(kept, DEDUP, to_line="4.2.0")


def _restart(tmp_path: Path, run: CorpusRun) -> tuple[Any, _Stage]:
    """The corpus's restart: rows put back, the candidate's batch 3 written, then judged."""
    stage = _Stage(_Folders(tmp_path / "restart" / "log", tmp_path / "restart"), _Output(tmp_path))
    old_batches = put_rows_back(stage, run.kept)
    _write_batches(SparkAppSettings(log_dir=stage.folders.log).query_output, {3: [9]})
    records = tmp_path / "corpus" / run.kept.manifest.cell / "records.jsonl"
    return judge_kept(stage, run, old_batches, records, TOPIC), stage


def test_a_corpus_restart_of_an_append_query_is_judged_on_its_whole_output(
    tmp_path: Path,
) -> None:
    comparison, stage = _restart(tmp_path, _corpus_cell(tmp_path, with_rows=True))
    # Every record judged, and the group the writing line wrote before its stop is found.
    assert stage.output.lost == [()]
    assert comparison.ok, comparison.summary_lines()


def test_a_corpus_cell_kept_without_rows_is_judged_after_the_restart_and_says_so(
    tmp_path: Path,
) -> None:
    comparison, stage = _restart(tmp_path, _corpus_cell(tmp_path, with_rows=False))
    assert stage.output.lost == [(LostRange(TOPIC, 0, 0, COMMITTED).text(),)]
    assert any("only the rows after the restart are judged" in line for line in stage.said)
    # The straddling group is what the narrower judgement gets wrong: the reason for the change.
    assert not comparison.ok


def test_which_rows_are_judged_depends_on_the_query_and_its_mode() -> None:
    before = (LostRange(TOPIC, 0, 0, COMMITTED).text(),)
    changed = QueryChecked(str(PROJECT_ROOT / "queries" / "changes" / "new.py"), "append", ("g",))
    update = QueryChecked(DEDUP.path, "update", ("group",))
    # The same append query on both sides: every row, over every record.
    assert judged_rows(ChangeRun(DEDUP, DEDUP), 2, before) == (-1, ())
    # A changed append query: NEW's rows, over what NEW read.
    assert judged_rows(ChangeRun(DEDUP, changed), 2, before) == (2, before)
    # Without the first line's rows (an old corpus cell): as a changed query.
    assert judged_rows(ChangeRun(DEDUP, DEDUP), -1, before, old_rows=False) == (-1, before)
    # Update mode: the rows since the restart, over every record.
    assert judged_rows(ChangeRun(update, update), 2, before) == (2, ())
