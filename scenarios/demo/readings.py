"""The demo's looks at what the apps leave: the output log's verdict, the checkpoint, Kafka.

The two on disk read only files, through the project's pure readers (`scenarios.checker.verify`
for the log, `spark_app.checkpoint.reader` and `state_files` for the checkpoint), so they work
whether the Spark app is up, down or has never run. The `*_from_*` functions are pure and tested
on their own. The demo's screen and its live page (`--web`, scenarios/web/) read through these
and nothing else; the page asks for more of the checkpoint (`row`: its newest batches, its
state versions) and for Kafka's offsets per partition (`KafkaWatch`, a thread of its own, so a
broker that does not answer never holds up the screen).

Usage:
    verdict = read_verdict(Path("log/streaming-output.log"))
    view = read_checkpoint_view(Path("checkpoints"), kafka_earliest=120, row=8)
    with KafkaWatch("127.0.0.1:9092", "Experience") as kafka: kafka.last
"""

from __future__ import annotations

from pathlib import Path

from scenarios.checker.verify import VerifyReport, verify_file
from scenarios.demo.state import BatchView, CheckpointView, StateView, Verdict
from scenarios.engine.observers.kafka_probe import KafkaProbe, OffsetWindow
from scenarios.engine.observers.periodic import PeriodicSampler
from spark_app.checkpoint.reader import CheckpointInfo, read_checkpoint, read_offset_file
from spark_app.checkpoint.state_files import list_state_files, per_version, snapshot_versions
from spark_app.errors import CheckpointError
from spark_app.offsets import Offsets, describe_offsets

__all__ = [
    "verdict_from_report",
    "read_verdict",
    "checkpoint_view",
    "read_checkpoint_view",
    "batch_row",
    "state_view",
    "KafkaWatch",
]

# The count's one state store: operator 0, shuffle partition 0 (the app pins one partition).
STATE_STORE = ("state", "0", "0")
# How many state versions the page lists: the newest ones, where a restart's version is.
STATE_VERSIONS_SHOWN = 8


def _problems(report: VerifyReport) -> str:
    parts = []
    if report.missing:
        parts.append(
            f"missing {report.missing_count} ({', '.join(str(r) for r in report.missing[:3])}"
            f"{' ...' if len(report.missing) > 3 else ''})"
        )
    if report.duplicated:
        parts.append(f"duplicated {len(report.duplicated)}")
    if report.count_resets:
        parts.append(f"count reset at value {', '.join(map(str, report.count_resets[:3]))}")
    other_breaks = [b for b in report.count_breaks if b.kind != "reset"]
    if other_breaks:
        parts.append(f"{len(other_breaks)} count break(s)")
    if report.unpaired:
        parts.append(f"{len(report.unpaired)} unpaired line(s)")
    if report.ignored_lines:
        parts.append(f"{report.ignored_lines} line(s) that are not output lines")
    return "; ".join(parts)


def verdict_from_report(report: VerifyReport) -> Verdict:
    """The verifier's report as one headline and a few detail lines."""
    if report.messages == 0:
        return Verdict(ok=None, headline="no messages in the output log yet")
    figures = (
        f"{report.distinct} of 1..{report.highest} seen, "
        f"{report.messages} messages read, last count {report.final_count}"
    )
    if report.ok:
        return Verdict(
            ok=True,
            headline=f"every message exactly once: {figures}",
            final_count=report.final_count,
        )
    return Verdict(
        ok=False,
        headline=f"{_problems(report)} | {figures}",
        details=tuple(report.summary_lines()[2:6]),
        final_count=report.final_count,
    )


def read_verdict(output_log: Path) -> Verdict:
    """The verdict of the output log as it is on disk right now."""
    if not output_log.is_file():
        return Verdict(ok=None, headline=f"no output log yet ({output_log})")
    try:
        return verdict_from_report(verify_file(output_log))
    except OSError as error:
        return Verdict(ok=None, headline=f"cannot read {output_log}: {error}")


def _still_in_kafka(resume_at: int | None, kafka_earliest: int | None) -> str:
    # The point of seed 001's scenario #2: a restart needs its resume offset still retained.
    if resume_at is None or kafka_earliest is None:
        return ""
    if resume_at >= kafka_earliest:
        return f"; still in Kafka (earliest {kafka_earliest})"
    return f"; AGED OUT of Kafka (earliest {kafka_earliest}): a restart reports data loss"


def _first_offset(info: CheckpointInfo) -> int | None:
    resume = info.resume_from
    return min(resume.values()) if resume else None


def checkpoint_view(
    info: CheckpointInfo,
    kafka_earliest: int | None = None,
    shown_as: str | None = None,
    row: int = 0,
) -> CheckpointView:
    """One line saying where a restart with this checkpoint would continue, and if it can;
    `shown_as` names it where `info.path` is a local copy (a checkpoint on a store). With
    `row`, also its newest `row` batches and its state versions (the live page)."""
    name = shown_as or f"{info.path}/"
    if not info.exists:
        return CheckpointView(summary=f"none at {name}: the next start is a new query, state empty")
    if info.is_new:
        return CheckpointView(summary=f"{name}: query started, no batch planned yet")
    resume = info.resume_from
    where = describe_offsets(resume) if resume else "where the query started"
    fit = _still_in_kafka(_first_offset(info), kafka_earliest)
    if info.pending is not None:
        summary = (
            f"batch {info.pending_id} planned, not committed: a restart replays it from "
            f"{where}{fit}"
        )
    else:
        summary = (
            f"last committed batch {info.last_committed_id}: a restart resumes at {where}{fit}"
        )
    return CheckpointView(
        summary=summary,
        last_batch=info.last_committed_id,
        batches=batch_row(info, row) if row else (),
        state=state_view(info) if row else None,
        committed_total=info.last_committed.end_total if info.last_committed else None,
        resume_at=tuple((str(tp), offset) for tp, offset in sorted((resume or {}).items())),
    )


def read_checkpoint_view(
    checkpoint_dir: Path,
    kafka_earliest: int | None = None,
    shown_as: str | None = None,
    row: int = 0,
) -> CheckpointView:
    """The checkpoint folder as it is on disk right now (a damaged one says so)."""
    try:
        return checkpoint_view(read_checkpoint(checkpoint_dir), kafka_earliest, shown_as, row)
    except (CheckpointError, OSError) as error:
        # Spark may be half-way through writing a batch file; the next read settles it.
        return CheckpointView(summary=f"unreadable right now: {error}")


def batch_row(info: CheckpointInfo, count: int) -> tuple[BatchView, ...]:
    """The newest `count` batches of the offset log, oldest first: each one's range (from the
    end of the batch before, or where the query started) and whether its commit is there."""
    folder, committed = info.path / "offsets", set(info.commit_ids)
    chosen = info.offset_ids[-count:]
    ends: dict[int, Offsets | None] = {
        n: read_offset_file(folder / str(n)).end
        for n in {*chosen, *(n - 1 for n in chosen)}
        if n in info.offset_ids
    }
    row = []
    for n in chosen:
        end = ends[n] or {}
        start = ends.get(n - 1) if n > 0 else info.initial_offsets
        ranges = tuple(
            (str(tp), None if start is None else start.get(tp), offset)
            for tp, offset in sorted(end.items())
        )
        row.append(BatchView(n, ranges, n in committed))
    return tuple(row)


def state_view(info: CheckpointInfo) -> StateView:
    """The versions of the count's state store on disk, and the one a restart loads."""
    store = info.path.joinpath(*STATE_STORE)
    files = list_state_files(store)
    versions = tuple(per_version(files))
    loads = None if info.last_committed_id is None else info.last_committed_id + 1
    return StateView(
        folder="/".join(STATE_STORE),
        versions=versions[-STATE_VERSIONS_SHOWN:],
        snapshots=tuple(snapshot_versions(files)),
        restart_loads=loads,
    )


class KafkaWatch(PeriodicSampler):
    """The topic's offsets per partition, asked every `interval` seconds in a thread of its
    own; `last` is the newest answer (None until Kafka answered)."""

    def __init__(self, bootstrap_servers: str, topic: str, interval: float = 0.5) -> None:
        super().__init__(interval, "demo-kafka-watch")
        self._probe = KafkaProbe(bootstrap_servers, topic, timeout_sec=2.0)
        self.last: OffsetWindow | None = None

    def sample(self) -> None:
        try:
            window = self._probe.window()
        except Exception:  # noqa: BLE001 - a look must never end the demo
            # kafka-python raises assorted errors while the broker starts or stops; the probe
            # starts afresh on the next look.
            self._probe.stop()
            return
        self.last = window or self.last

    def stop(self) -> None:
        super().stop()
        self._probe.stop()
