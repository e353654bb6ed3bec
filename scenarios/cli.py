"""The command line of the scenarios: list them, run them, verify an output log.

Usage:
    python -m scenarios list
    python -m scenarios run all --fast --report reports
    python -m scenarios run all --fast -j 2 --report reports
    python -m scenarios run all --fast --shard 1/3 --report shard-1
    python -m scenarios merge shard-1 shard-2 shard-3 --into reports
    python -m scenarios run endless-retention --spark 4.0.0
    python -m scenarios matrix --spark 4.0.0,4.1.1,4.2.0 endless-retention --fast
    python -m scenarios run short-retention --fast --stack apache/connector
    python -m scenarios matrix --stack all short-retention checkpoint-reset --fast
    python -m scenarios verify log/streaming-output.log --json
    python -m scenarios verify --sent log/kafka.log
    python -m scenarios demo
    python -m scenarios doctor
    python -m scenarios exercise --list
    python -m scenarios nemesis --minutes 2 --seed 7 --fast
    python -m scenarios puzzle --seed 7
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from rich.console import Console

from checkpoint_stores import STORES
from kafka_app.apache.jars import DEFAULT_VERSION as DEFAULT_KAFKA_VERSION
from kafka_app.apache.jars import check_version as check_kafka_version
from kafka_app.settings import ProducerAppSettings
from launch.errors import LaunchError
from launch.hangup import stop_like_ctrl_c
from launch.platform_needs import RUN_NEEDS, require
from scenarios.checker.sent_record import SentRecord, read_producer_log, read_topic
from scenarios.checker.verify import VerifyReport, reading_line, verify_file, verify_sent
from scenarios.engine.events import Listener
from scenarios.engine.scenario import Scenario
from scenarios.engine.settings import RunSettings, Timings
from scenarios.engine.stacks import OFFLINE, STACKS, add_stack_options, chosen_stack, parse_stack
from scenarios.errors import ScenarioError
from scenarios.registry import all_scenarios, find_scenarios
from scenarios.report.narration import Narrator
from scenarios.report.pages import write_index
from scenarios.report.verdicts import ScenarioResult, exit_code, print_verdicts, write_reports
from scenarios.run.jar_prefetch import prefetch_jars
from scenarios.run.jobs import run_in_jobs
from scenarios.run.matrix import (
    APIS,
    on_spark,
    print_matrix,
    run_api_matrix,
    run_kafka_matrix,
    run_matrix,
    run_stack_matrix,
    run_store_matrix,
)
from scenarios.run.merge import merge_reports
from scenarios.run.query_check import checked_query
from scenarios.run.runner import run_folder, run_scenarios
from scenarios.run.shards import Shard
from scenarios.run.shared_kafka import shared_kafka
from scenarios.web.live_run import live_run
from scenarios.web.options import add_web_options, web_choice

__all__ = ["main_parser", "run_cli"]

DEFAULT_OUTPUT_LOG = Path("log/streaming-output.log")
_PRODUCER = ProducerAppSettings()
DEFAULT_BOOTSTRAP = f"{_PRODUCER.host}:{_PRODUCER.port}"
SENT_FROM_TOPIC = "topic"


def main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m scenarios",
        description="Reproduce the checkpoint scenarios unattended, or check an output log.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the scenarios and what each shows")
    run = commands.add_parser("run", help="run scenarios unattended; exit 0 only if all held")
    run.add_argument("names", nargs="+", metavar="NAME", help="scenario names, or all")
    run.add_argument(
        "--fast",
        action="store_true",
        help="short retention and intervals (retention 5 s, checks every 1 s) for CI",
    )
    run.add_argument(
        "--report",
        type=_folder,
        metavar="DIR",
        help="write index.html, <scenario>.json, <scenario>.svg and junit.xml here "
        "(and keep each scenario's folders under DIR/<scenario>/)",
    )
    pacing = run.add_mutually_exclusive_group()
    pacing.add_argument(
        "--guided",
        action="store_true",
        help="on a terminal: each step asks its question and waits for Enter; "
        "its answer follows its checks",
    )
    pacing.add_argument(
        "--projector",
        type=_seconds,
        metavar="SECONDS",
        help="as --guided, but leave each question on screen SECONDS, then go on "
        "(no Enter: for a trainer who talks over it)",
    )
    run.add_argument(
        "--bootstrap-servers", metavar="HOST:PORT", help="use this Kafka instead of starting one"
    )
    _add_kafka_per_scenario(run)
    add_stack_options(run)
    run.add_argument(
        "--spark",
        metavar="VERSION",
        help="run the Spark app on this PySpark (e.g. 4.0.0), in an environment made "
        "with uv on first use (default: the project's own)",
    )
    run.add_argument(
        "--kafka-version",
        metavar="VERSION",
        help="the Apache Kafka the scenarios start (e.g. 4.0.2 or 4.4.0), its jars "
        f"fetched once (default {DEFAULT_KAFKA_VERSION})",
    )
    run.add_argument(
        "--checkpoint-store",
        choices=list(STORES),
        default="local",
        help="where the Spark app keeps its checkpoint: the scenario's folder "
        "(default), or HDFS (a MiniDFSCluster) or S3 (s3proxy) that each "
        "scenario starts before the app and stops after it",
    )
    run.add_argument(
        "--connect",
        action="store_true",
        help="the Spark app runs its query through Spark Connect (spark_app --connect), "
        "on a server in its own JVM",
    )
    run.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="run N scenarios at a time, each as its own process into one report "
        "(its narration in <report>/jobs/<name>.out), the longest first; 2 "
        "is faster even on two cores (default 1)",
    )
    # Given by `run -j N` to each of its jobs: the run's broker (scenarios/run/shared_kafka.py).
    run.add_argument("--run-kafka", metavar="HOST:PORT", help=argparse.SUPPRESS)
    _add_shard_option(run)
    _add_query_option(run)
    _add_scenario_options(run)
    add_web_options(run)
    matrix = commands.add_parser(
        "matrix",
        help="run scenarios on several PySpark versions, or on several stacks, and "
        "compare them check by check",
    )
    columns = matrix.add_mutually_exclusive_group(required=True)
    columns.add_argument(
        "--spark",
        metavar="V1,V2,…",
        help="PySpark versions, e.g. 4.0.0,4.1.1,4.2.0 (each in its own environment)",
    )
    columns.add_argument(
        "--kafka-version",
        metavar="V1,V2,…",
        help="Apache Kafka versions, e.g. 4.0.2,4.1.2,4.4.0, on the default stack "
        "(each version's jars fetched once)",
    )
    columns.add_argument(
        "--stack",
        metavar="S1,S2,…",
        help="stacks, KAFKA/SOURCE, e.g. embedded/python,apache/connector, or all "
        "for the four (embedded|apache × python|connector)",
    )
    columns.add_argument(
        "--api",
        metavar="A1,A2,…",
        help="how the Spark app talks to Spark: classic,connect (Spark Connect, "
        "spark_app --connect) — the fidelity of Connect, check by check",
    )
    columns.add_argument(
        "--checkpoint-store",
        metavar="S1,S2,…",
        help="checkpoint stores, e.g. local,hdfs,s3: the scenarios with the "
        "checkpoint on each, started per scenario as run does",
    )
    matrix.add_argument(
        "names", nargs="*", metavar="NAME", help="scenario names (default: endless-retention)"
    )
    matrix.add_argument("--fast", action="store_true", help="short timings, as for run")
    _add_kafka_per_scenario(matrix)
    matrix.add_argument(
        "--offline",
        action="store_true",
        help=f"with --spark: every version on {OFFLINE.name}, e.g. for a Spark "
        "whose connector Maven Central does not serve (4.3.0)",
    )
    matrix.add_argument(
        "--report",
        type=_folder,
        metavar="DIR",
        help="write matrix.html, matrix.json, matrix.md, junit.xml (a suite per "
        "version) and "
        "each version's scenario reports under DIR/<version>/",
    )
    _add_shard_option(matrix)
    _add_query_option(matrix)
    _add_scenario_options(matrix)
    merge = commands.add_parser(
        "merge", help="join the report folders of a run split with --shard into one"
    )
    merge.add_argument(
        "shards",
        nargs="+",
        type=_folder,
        metavar="DIR",
        help="the --report folders of the shards (of a run, or of a matrix)",
    )
    merge.add_argument(
        "--into",
        type=_folder,
        required=True,
        metavar="DIR",
        help="where the joined index.html, junit.xml and reports go",
    )
    # Listed here for --help only: run_cli hands the demo its arguments before parsing, because
    # the demo has options of its own (python -m scenarios demo --help).
    commands.add_parser(
        "demo",
        add_help=False,
        help="one terminal, both apps, keys to crash, kill, restart and reset",
    )
    commands.add_parser(
        "doctor",
        add_help=False,
        help="check and prepare this machine for the workshop (--no-smoke: "
        "without the one-minute run)",
    )
    commands.add_parser(
        "check-change",
        add_help=False,
        help="will a checkpoint take a changed query? run OLD.py, restart NEW.py on its "
        "checkpoint, judge with the oracle (exit 0, 1, or 2 for bad input)",
    )
    commands.add_parser(
        "compat",
        add_help=False,
        help="does a checkpoint written on one Spark line restart on another? the counter and "
        "the gallery over every pair of served lines (--keep DIR: keep the checkpoints)",
    )
    commands.add_parser(
        "exercise",
        add_help=False,
        help="the workshop's exercises: set one up (Kafka stays in this terminal), do it by "
        "hand, --check it (--list names them)",
    )
    commands.add_parser(
        "nemesis",
        add_help=False,
        help="minutes of faults drawn by a seed (kills, pauses, cuts, a full disk, …) under a "
        "supervised app, then one checker: every value exactly once? (exit 0, 1, or 2)",
    )
    commands.add_parser(
        "puzzle",
        add_help=False,
        help="the workshop's capstone: a checkpoint and its job, broken by a fault the seed "
        "draws; diagnose, repair, --check (exit 0, 1, or 2)",
    )
    commands.add_parser(
        "kit",
        add_help=False,
        help="write the offline kit for a workshop (kit write DIR), or install "
        "from one (sh DIR/install.sh)",
    )
    verify = commands.add_parser(
        "verify", help="check the Spark app's output log: missing, duplicated, count breaks"
    )
    verify.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=DEFAULT_OUTPUT_LOG,
        help=f"the output log (default {DEFAULT_OUTPUT_LOG})",
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument(
        "--sent",
        metavar="LOG|topic",
        help="hold the output log against what was sent, so a message lost after the highest "
        "value written is missing too: the producer's log (log/kafka.log), or the word "
        "topic for every record Kafka still holds (records retention deleted are not "
        "there, so the producer's log is the fuller record). Stop the producer and let "
        "the Spark app catch up first, or the newest messages show as missing",
    )
    verify.add_argument(
        "--bootstrap-servers",
        metavar="HOST:PORT",
        help=f"with --sent topic: the Kafka to read (default {DEFAULT_BOOTSTRAP}, the producer's)",
    )
    verify.add_argument(
        "--topic",
        default=_PRODUCER.topic,
        help="the topic whose messages count as sent (default %(default)s)",
    )
    return parser


def _add_kafka_per_scenario(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kafka-per-scenario",
        action="store_true",
        help="start a broker for every scenario; by default a run of several "
        "starts one, which each scenario uses with a topic of its own "
        "(those that kill, upgrade or cut Kafka always start their own)",
    )


def run_cli(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["demo"]:
        from scenarios.demo import run_demo  # rich Live and termios only when asked for

        return run_demo(argv[1:])
    if argv[:1] == ["doctor"]:
        from scenarios.doctor import run_doctor

        return run_doctor(argv[1:])
    if argv[:1] == ["kit"]:
        from scenarios.kit import run_kit

        return run_kit(argv[1:])
    if argv[:1] == ["check-change"]:
        from scenarios.change_command import run_check_change

        return run_check_change(argv[1:])
    if argv[:1] == ["compat"]:
        from scenarios.compat_command import run_compat

        return run_compat(argv[1:])
    if argv[:1] == ["exercise"]:
        from scenarios.exercise_command import run_exercise

        return run_exercise(argv[1:])
    if argv[:1] == ["nemesis"]:
        from scenarios.nemesis_command import run_nemesis

        return run_nemesis(argv[1:])
    if argv[:1] == ["puzzle"]:
        from scenarios.puzzle_command import run_puzzle

        return run_puzzle(argv[1:])
    parser = main_parser()
    args = parser.parse_args(argv)
    if args.command == "verify" and args.bootstrap_servers and args.sent != SENT_FROM_TOPIC:
        parser.error("--bootstrap-servers goes with --sent topic")
    try:
        if args.command == "verify":
            return _verify(args)
        if args.command == "list":
            return _list()
        if args.command == "matrix":
            return _matrix(args)
        if args.command == "merge":
            return _merge(args)
        return _run(args, argv)
    except KeyboardInterrupt:
        print("interrupted; every process the scenarios started has been stopped", file=sys.stderr)
        return 1
    except (ScenarioError, LaunchError) as error:
        print(f"scenarios: {error}", file=sys.stderr)
        return 2


def _list() -> int:
    scenarios = all_scenarios()
    width = max(len(s.name) for s in scenarios)  # every title in one column, however long a name
    for scenario in scenarios:
        needs = (
            f"; needs {scenario.kafka_brokers} Kafka brokers: Apache Kafka"
            if scenario.kafka_brokers > 1
            else ""
        )
        takes = f"; {scenario.takes.split(':')[0]} with --fast" if scenario.takes else ""
        print(f"{scenario.name:{width}} {scenario.title} ({scenario.origin}{needs}{takes})")
        for case, line in scenario.cases:  # the museum's exhibits, as a group under it
            print(f"  {case:{width - 2}} {line}")
    return 0


def _run(args: argparse.Namespace, argv: Sequence[str]) -> int:
    require("python -m scenarios run", RUN_NEEDS)  # before anything starts: one line, no trace
    scenarios = [_with_options(s, args) for s in find_scenarios(args.names)]
    _refuse_stray_options(scenarios, args)
    _refuse_query(scenarios, args)
    scenarios = _sharded(scenarios, args)
    if not scenarios:
        return 0
    if args.jobs > 1 and (args.guided or args.projector):
        raise ScenarioError(
            "--guided and --projector pace one narration; with -j several run at once: choose one"
        )
    web = web_choice(args)
    if args.jobs > 1 and web is not None:
        raise ScenarioError(
            "--web shows one scenario at a time; with -j several run at once: choose one"
        )
    with live_run(web, scenarios, guided=args.guided) as page:
        return _run_here(scenarios, args, argv, page.listeners, page.ask)


def _run_here(
    scenarios: list[Scenario],
    args: argparse.Namespace,
    argv: Sequence[str],
    listeners: Sequence[Listener],
    ask: Callable[[str], str],
) -> int:
    """The run itself, narrated here (and on the live page, through `listeners` and `ask`)."""
    narrator = Narrator(guided=args.guided, projector_sec=args.projector or 0.0, ask=ask)
    settings = RunSettings(
        timings=Timings.fast() if args.fast else Timings.seed(),
        fast=args.fast,
        report_dir=args.report,
        guided=args.guided,
        bootstrap_servers=args.bootstrap_servers,
        share_kafka=not args.kafka_per_scenario,
        shared_kafka=args.run_kafka,
        checkpoint_store=args.checkpoint_store,
        connect=args.connect,
        class_archive=True,
        query=args.query,
        records=args.records.resolve() if args.records else None,
    )
    settings = chosen_stack(args).applied_to(settings)
    if args.kafka_version:
        settings = replace(settings, kafka_version=_kafka_version(args.kafka_version, settings))
    stop_like_ctrl_c()
    settings = on_spark(settings, args.spark, narrator.say)
    settings = checked_query(settings, narrator.say)
    prefetch_jars(settings, narrator.say, scenarios)
    if args.jobs > 1:
        results = _run_in_jobs(scenarios, args, argv, settings, narrator)
    else:
        results = run_scenarios(scenarios, settings, narrator, listeners)
    print_verdicts(results, Console(highlight=False), short=args.guided or bool(args.projector))
    if args.report is not None:
        print(f"reports in {args.report}: index.html, junit.xml, <scenario>.json, <scenario>.svg")
    return exit_code(results)


def _matrix(args: argparse.Namespace) -> int:
    require("python -m scenarios matrix", RUN_NEEDS)
    scenarios = [
        _with_options(s, args) for s in find_scenarios(args.names or ["endless-retention"])
    ]
    _refuse_stray_options(scenarios, args)
    _refuse_query(scenarios, args)
    scenarios = _sharded(scenarios, args)
    if not scenarios:
        return 0
    settings = RunSettings(
        timings=Timings.fast() if args.fast else Timings.seed(),
        fast=args.fast,
        share_kafka=not args.kafka_per_scenario,
        class_archive=True,
        query=args.query,
        records=args.records.resolve() if args.records else None,
    )
    # Checked once on the project's PySpark; each line's app checks it again as it starts.
    settings = checked_query(settings, print)
    if args.stack is not None and args.offline:
        raise ScenarioError(
            "--offline goes with --spark; with --stack, name the stacks "
            f"(--stack {OFFLINE.name} is the offline one)"
        )
    if args.offline:
        settings = OFFLINE.applied_to(settings)
    if args.kafka_version is not None:
        if args.offline:
            raise ScenarioError(
                "--kafka-version names Apache Kafka's versions; --offline runs "
                "the embedded broker: give one"
            )
        versions = [
            _kafka_version(v.strip(), settings) for v in args.kafka_version.split(",") if v.strip()
        ]
        stop_like_ctrl_c()
        for version in versions:
            prefetch_jars(replace(settings, kafka_version=version), print, scenarios)
        matrix = run_kafka_matrix(versions, scenarios, settings, Narrator(), args.report)
        print_matrix(matrix, Console(highlight=False))
        if args.report is not None:
            print(
                f"reports in {args.report}: matrix.html, matrix.md, matrix.json, junit.xml, "
                f"kafka-<version>/"
            )
        return matrix.exit_code
    if args.api is not None:
        apis = _apis(args.api)
        stop_like_ctrl_c()
        prefetch_jars(settings, print, scenarios)
        matrix = run_api_matrix(apis, scenarios, settings, Narrator(), args.report)
        folders = "api-<api>/"
    elif args.checkpoint_store is not None:
        stores = _stores(args.checkpoint_store)
        stop_like_ctrl_c()
        prefetch_jars(settings, print, scenarios)
        matrix = run_store_matrix(stores, scenarios, settings, Narrator(), args.report)
        folders = "store-<store>/"
    elif args.stack is not None:
        stacks = (
            list(STACKS)
            if args.stack.strip() == "all"
            else [parse_stack(s) for s in args.stack.split(",") if s.strip()]
        )
        stop_like_ctrl_c()
        for stack in stacks:
            prefetch_jars(stack.applied_to(settings), print, scenarios)
        matrix = run_stack_matrix(stacks, scenarios, settings, Narrator(), args.report)
        folders = "<kafka>-<source>/"
    else:
        versions = [v.strip() for v in args.spark.split(",") if v.strip()]
        stop_like_ctrl_c()
        for version in versions:  # each version's environment, made here if new, and connector
            prefetch_jars(on_spark(settings, version, print), print, scenarios)
        matrix = run_matrix(versions, scenarios, settings, Narrator(), args.report)
        folders = "<version>/"
    print_matrix(matrix, Console(highlight=False))
    if args.report is not None:
        print(
            f"reports in {args.report}: matrix.html, matrix.md, matrix.json, junit.xml, {folders}"
        )
    return matrix.exit_code


def _folder(text: str) -> Path:
    """A report folder, made absolute here: each scenario's processes run in folders of their
    own, where a relative path would name another place (seen: a run that waited 300 s for
    output written under a nested copy of the path)."""
    return Path(text).expanduser().resolve()


def _apis(text: str) -> list[str]:
    """The APIs named by `--api a,b`, or one line saying which is unknown."""
    return _named("--api", text, APIS, "the APIs", "classic,connect")


def _stores(text: str) -> list[str]:
    """Checkpoint stores named by `--checkpoint-store a,b`, or one line saying which is unknown."""
    return _named("--checkpoint-store", text, STORES, "the stores", "local,hdfs,s3")


def _named(option: str, text: str, known: Sequence[str], what: str, example: str) -> list[str]:
    """`option a,b` as a list of names from `known`, or one line saying which is unknown."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ScenarioError(
            f"{option} {text}: {', '.join(unknown) or 'none given'}; {what} are "
            f"{', '.join(known)}, e.g. {option} {example}"
        )
    return names


def _add_shard_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="run only every N-th of the chosen scenarios, from the I-th: N jobs "
        "(1/N … N/N) run each once; join their reports with merge",
    )


def _sharded(scenarios: Sequence[Scenario], args: argparse.Namespace) -> list[Scenario]:
    if args.shard is None:
        return list(scenarios)
    mine = args.shard.pick(scenarios)
    names = ", ".join(s.name for s in mine) or "none"
    print(f"shard {args.shard}: {len(mine)} of the {len(scenarios)} scenarios chosen ({names})")
    return mine


def _run_in_jobs(
    scenarios: Sequence[Scenario],
    args: argparse.Namespace,
    argv: Sequence[str],
    settings: RunSettings,
    narrator: Narrator,
) -> list[ScenarioResult]:
    """Each scenario as `python -m scenarios run NAME` with this run's other options, into one
    report folder (the one given, or a temporary one removed at the end), on the run's one
    Kafka where sharing one is worth it, as a run without -j does: a broker start per job
    took as much CPU as the second job saved on two cores."""
    with (
        run_folder(args.report) as base,
        shared_kafka(scenarios, settings, base, narrator) as settings,
    ):
        results = run_in_jobs(
            scenarios,
            lambda name: _job_command(name, args.names, argv, base, settings),
            args.jobs,
            base,
            narrator,
        )
        write_reports(results, base)
        write_index(results, base)
    return results


def _job_command(
    name: str, names: Sequence[str], argv: Sequence[str], base: Path, settings: RunSettings
) -> list[str]:
    """The command line of the job that runs `name` into the run's folder `base`."""
    run_kafka = ["--run-kafka", settings.shared_kafka] if settings.shared_kafka else []
    return [
        sys.executable,
        "-m",
        "scenarios",
        "run",
        name,
        *_options_for_a_job(argv, names, name),
        *run_kafka,
        "--report",
        str(base),
    ]


# Options `run` takes with a value that a job must not get as given: each job runs one
# scenario into the shared folder, on the run's Kafka, and is not split again.
_NOT_FOR_A_JOB = ("-j", "--jobs", "--report", "--shard", "--run-kafka")


def _options_for_a_job(argv: Sequence[str], names: Sequence[str], name: str) -> list[str]:
    """This run's command line for the job that runs `name`: less the command, the scenario
    names, -j, --report, --shard, and the options of other scenarios (with their values)."""
    dropped = set(_NOT_FOR_A_JOB) | {
        o.flag for s in all_scenarios() if s.name != name for o in s.options
    }
    kept, skip = [], False
    for token in list(argv)[1:]:  # argv[0] is "run"
        flag = token.split("=", 1)[0]
        if skip:
            skip = False
        elif token in dropped:
            skip = True  # its value is the next token
        elif flag in dropped or (token.startswith("-j") and token[2:].isdigit()):
            pass
        elif token not in names:
            kept.append(token)
    return kept


def _merge(args: argparse.Namespace) -> int:
    merged = merge_reports(args.shards, args.into)
    if merged.matrix is not None:
        print_matrix(merged.matrix, Console(highlight=False))
        print(f"merged into {args.into}: matrix.html, matrix.md, matrix.json, junit.xml")
        return merged.matrix.exit_code
    print_verdicts(merged.results, Console(highlight=False))
    print(f"merged into {args.into}: index.html, junit.xml, <scenario>.json, <scenario>.svg")
    return exit_code(merged.results)


def _jobs(text: str) -> int:
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a number of jobs of 1 or more, e.g. -j 2")


def _shard(text: str) -> Shard:
    try:
        return Shard.parse(text)
    except ScenarioError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _seconds(text: str) -> float:
    """A positive number of seconds, or one line saying what was wrong."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0, e.g. 20")
    return seconds


def _kafka_version(version: str, settings: RunSettings) -> str:
    """A Kafka version for the brokers the scenarios start, or one line saying why not."""
    if settings.kafka != "apache" or settings.bootstrap_servers:
        raise ScenarioError(
            f"--kafka-version {version} applies to the Apache Kafka the scenarios "
            f"start; this run uses {settings.stack.split('/')[0]} Kafka"
        )
    wrong = check_kafka_version(version)
    if wrong:
        raise ScenarioError(wrong)
    return version


def _add_scenario_options(parser: argparse.ArgumentParser) -> None:
    """Options only one scenario takes, e.g. chaos's --kills N or the museum's --exhibits."""
    for scenario in all_scenarios():
        if scenario.options:
            group = parser.add_argument_group(f"options of {scenario.name}")
            for option in scenario.options:
                group.add_argument(
                    option.flag, type=option.type, metavar=option.metavar, help=option.help
                )


def _with_options(scenario: Scenario, args: argparse.Namespace) -> Scenario:
    """The scenario with the values given for its own options bound to its run function."""
    given = {
        o.dest: getattr(args, o.dest) for o in scenario.options if getattr(args, o.dest) is not None
    }
    return replace(scenario, run=partial(scenario.run, **given)) if given else scenario


def _add_query_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--records",
        type=Path,
        metavar="FILE.jsonl",
        help="with --query: the producer sends your own records (JSON lines: value, key, "
        "event_time) instead of the counter; the oracle judges by them",
    )
    parser.add_argument(
        "--query",
        type=Path,
        metavar="FILE.py",
        help="run your own query module (OUTPUT_MODE, KEY, build(records); docs/your-query.md) "
        "instead of the counter, in the scenarios that take one; the oracle judges it at the "
        "end against every record sent",
    )


def _refuse_query(chosen: Sequence[Scenario], args: argparse.Namespace) -> None:
    """A query given to a scenario that cannot take one is one line saying why."""
    if getattr(args, "records", None) is not None:
        if args.query is None:
            raise ScenarioError(
                "--records goes with --query: the counter counts the producer's own values; "
                "give the query module that reads your records"
            )
        from kafka_app.user_records import RecordsFileError, read_user_records

        try:
            read_user_records(args.records)
        except RecordsFileError as error:
            raise ScenarioError(str(error)) from error
    if getattr(args, "query", None) is None:
        return
    refused = [s for s in chosen if not s.takes_query]
    if refused:
        takes = ", ".join(s.name for s in all_scenarios() if s.takes_query)
        raise ScenarioError(
            "; ".join(f"{s.name} does not take --query: {s.without_query}" for s in refused)
            + f" (the scenarios that take one: {takes})"
        )


def _refuse_stray_options(chosen: Sequence[Scenario], args: argparse.Namespace) -> None:
    """An option given for a scenario that is not being run is a mistake worth one line."""
    running = {o.dest for s in chosen for o in s.options}
    stray = {
        o.flag: s.name
        for s in all_scenarios()
        for o in s.options
        if o.dest not in running and getattr(args, o.dest, None) is not None
    }
    if stray:
        raise ScenarioError(
            "; ".join(
                f"{flag} is an option of {name}, which is not being run"
                for flag, name in stray.items()
            )
        )


def _verify(args: argparse.Namespace) -> int:
    path: Path = args.file
    try:
        report = verify_file(path)
    except OSError as error:
        reason = error.strerror or str(error)
        print(
            f"cannot read {path}: {reason}; run the Spark app first or name the log file",
            file=sys.stderr,
        )
        return 2
    if args.sent is not None:
        # Read after the output log: whatever the Spark app wrote was in the record by then.
        report = verify_sent(report, _sent_record(args))
    _print_report(report, path, as_json=args.json)
    return 0 if report.ok else 1


def _sent_record(args: argparse.Namespace) -> SentRecord:
    """The record named by --sent; raises SentRecordUnreadable (a ScenarioError: exit 2)."""
    if args.sent == SENT_FROM_TOPIC:
        return read_topic(args.bootstrap_servers or DEFAULT_BOOTSTRAP, args.topic)
    return read_producer_log(Path(args.sent), args.topic)


def _print_report(report: VerifyReport, path: Path, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({"file": str(path), **report.to_dict()}, indent=2))
        return
    verdict, *details = report.summary_lines()
    # The verdict first, then which file and how many runs it holds (old runs mixed in?).
    for line in (verdict, reading_line(path, report), *details):
        print(line)
