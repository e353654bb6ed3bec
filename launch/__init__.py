"""Starting, watching and stopping the playground's processes: the two apps, Kafka, the
checkpoint stores, each as a user starts it, through its command line.

Owned by neither app, and below everything that starts them: the scenarios' stage, the demo,
doctor, the run layer, the benchmarks and the tests all start processes through it, and it
imports nothing of them (tests/test_layers.py). One module per concept:

- `errors`: `LaunchError`, `ProcessError`, `WaitTimeout`;
- `waiting`: `wait_until`, polling a condition until a deadline, with progress;
- `process`: `ManagedProcess`, one child in its own process group, and `wait_while_alive`;
- `group`: `ProcessGroup`, every process of a run, stopped together however the run ends;
- `hangup`: a closed terminal unwinds like Ctrl-C, and no child outlives us;
- `ports`: a free port, whether a port is taken or answers;
- `folders`: a run's own folders (checkpoints, log, Kafka's data, the consoles);
- `commands`: the apps' command lines, built from their own settings objects;
- `kafka`: the broker (or a cluster) and the producer of one run;
- `spark`: the Spark app, started again and again on one checkpoint;
- `store`: a checkpoint store (HDFS, S3) and its ready line;
- `leftovers`: an earlier run's processes still in the way.

Usage:
    with ProcessGroup(run_dir / "processes") as group:
        spark = group.start("spark", spark_command(SparkAppSettings(...)))
        spark.wait_for(r"Count = 5", timeout=60)
"""

__all__: list[str] = []
