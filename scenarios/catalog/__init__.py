"""The scenarios, one module each, and the order `run all` runs them in.

Each module holds `SCENARIO = Scenario(...)` (scenarios/engine/scenario.py) and a `run(stage)`
function that tells its story with a Stage (scenarios/engine/stage/). Nothing else lives here:
the machinery is in scenarios/engine/, the verdicts in scenarios/checker/, what is shown and
written in scenarios/report/.
"""

__all__ = ["SCENARIO_MODULES"]

SCENARIO_MODULES = (
    "scenarios.catalog.endless_retention",
    "scenarios.catalog.short_retention",
    "scenarios.catalog.checkpoint_reset",
    "scenarios.catalog.poison_pill",
    "scenarios.catalog.chaos",
    "scenarios.catalog.parallelism",
    "scenarios.catalog.upgrade",
    "scenarios.catalog.query_changes",
    "scenarios.catalog.partitions_added",
    "scenarios.catalog.backlog",
    "scenarios.catalog.checkpoint_moved_and_shared",
    "scenarios.catalog.manual_offsets",
    "scenarios.catalog.kafka_outage",
    "scenarios.catalog.slow_checkpoint",
    "scenarios.catalog.storage_outage",
    "scenarios.catalog.spark_upgrade",
    "scenarios.catalog.executor_loss",
    "scenarios.catalog.worker_loss",
    "scenarios.catalog.broker_failover",
    "scenarios.catalog.kafka_upgrade",
    "scenarios.catalog.state_stores",
    "scenarios.catalog.checkpoint_v2",
    "scenarios.catalog.state_reader",
    "scenarios.catalog.checkpoint_growth",
    "scenarios.catalog.state_ttl_and_timers",
    "scenarios.catalog.state_repartition",
    "scenarios.catalog.real_time_mode",
    "scenarios.catalog.known_bugs",
)
