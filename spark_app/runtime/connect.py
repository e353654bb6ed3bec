"""`--connect`: the query goes through Spark Connect, to a server that lives and dies with the app.

PySpark's `SparkSession.builder.remote("local[2]")` starts a Spark Connect server inside a local
JVM of the Python process, and a kill of the app takes the server with it: no query keeps
running on a remote server after its client died. We start the same server the same way (a
classic session with Spark's `SparkConnectPlugin`), with one difference: `remote("local[…]")`
always dials port 15002 unless PySpark's test mode is on, so two apps at once (a scenario runs
two, a matrix several) met on one port. The server binds a free port here, and the client
dials the port the server reports, with a token of this run only.

The query (its source, its plan, foreachBatch and the listener) goes through the Connect
session, as it would against a remote server. What the app does beside the query (its JVM's
pid for the seed's crash, its checks on the checkpoint store, the warm-up job) keeps the
classic session of the same JVM: under a remote server those would be the server's business.

What changes under Connect (docs/spark-app.md#spark-connect):
- foreachBatch runs in a Python process the server starts, not in the app: the writer is built
  there and the stop between batches goes through a gate of files (query/server_writer.py).
- The listener's events come back over gRPC, so a batch's line can come a moment later.

Usage:
    conf |= connect_conf(token)                      # in the session's plan
    with query_session(classic, settings.connect) as spark: ...   # the query's session
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from spark_app.errors import ConnectClientMissingError

__all__ = [
    "check_connect_client",
    "PLUGIN",
    "connect_conf",
    "connect_session",
    "new_token",
    "query_session",
    "server_port",
]

PLUGIN = "org.apache.spark.sql.connect.SparkConnectPlugin"
# The environment variable PySpark's `pyspark.sql.functions` reads to build Connect columns
# instead of classic ones: a query module's `F.col(...)` must build the kind its session takes.
_CONNECT_MODE = "SPARK_CONNECT_MODE_ENABLED"
_TOKEN_KEY = "spark.connect.authenticate.token"


# What Spark Connect's client imports beside PySpark (PySpark's `connect` extra).
_CLIENT_MODULES = ("grpc", "grpc_status", "google.rpc", "zstandard")


def check_connect_client(version: str) -> None:
    """Refuse `--connect`, in one line and before Spark starts, where the client is missing."""
    missing = [m for m in _CLIENT_MODULES if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        raise ConnectClientMissingError(
            f"--connect needs Spark Connect's client, and {', '.join(missing)} cannot be "
            f"imported here: install 'pyspark[connect]=={version}' (the project's lock has it)"
        )


def new_token() -> str:
    """A bearer token for this run's server: only this app's client can use it."""
    return secrets.token_hex(16)


def connect_conf(token: str) -> dict[str, str]:
    """The classic session's settings that start a Connect server in its JVM on a free port."""
    return {
        "spark.plugins": PLUGIN,
        "spark.connect.grpc.binding.port": "0",
        # Loopback only, as the driver binds (session_plan.py): the token is not all that keeps
        # other machines out.
        "spark.connect.grpc.binding.address": "127.0.0.1",
        _TOKEN_KEY: token,
        # As remote("local[…]") sets them: each client session gets its own class loader.
        "spark.sql.artifact.isolation.enabled": "true",
        "spark.sql.artifact.isolation.alwaysApplyClassloader": "true",
    }


def server_port(classic: Any) -> int:
    """The port the in-process Connect server bound."""
    service = getattr(classic._jvm, "org.apache.spark.sql.connect.service.SparkConnectService$")
    return int(getattr(service, "MODULE$").localPort())


def _short_retries() -> Any:
    """A few retries over about 3 s. The client's default waits out a remote server's restart
    for 10 minutes; ours lives in this process's JVM and never comes back once gone (a Ctrl-C
    reaches the JVM too), and the app hung those 10 minutes on its way out."""
    from pyspark.sql.connect.client.retries import DefaultPolicy

    return DefaultPolicy(max_retries=4, initial_backoff=100, max_backoff=1000)


@contextmanager
def connect_session(classic: Any) -> Iterator[Any]:
    """A Spark Connect session on the server inside `classic`'s JVM, with the server's token,
    closed on the way out: before the server stops, or the client's threads retry a server that
    is gone and keep the process from exiting (seen: the app hung after a failed query).

    "localhost" with a token gives gRPC's local credentials (no TLS over loopback); with an
    address, PySpark asks for TLS, which the server does not speak."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    token = classic.sparkContext.getConf().get(_TOKEN_KEY)
    os.environ[_CONNECT_MODE] = "1"
    url = f"sc://localhost:{server_port(classic)}/;token={token}"
    session = ConnectSession.builder.remote(url).getOrCreate()
    session.client.set_retry_policies([_short_retries()])
    # PySpark warns, trace and all, when the listener's stream ends with the server: the app's
    # own stop line says what happened.
    warnings.filterwarnings("ignore", message="StreamingQueryListenerBus", category=UserWarning)
    warnings.filterwarnings("ignore", message="Failed to remove the listener", category=UserWarning)
    try:
        yield session
    finally:
        session.stop()


def query_session(classic: Any, connect: bool) -> Any:
    """The session the query runs in, as a context: `classic` itself, or a Connect session."""
    return connect_session(classic) if connect else nullcontext(classic)
