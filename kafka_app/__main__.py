"""Entry point: `python -m kafka_app [options]` runs the producer app, `python -m kafka_app broker`
the broker alone, `python -m kafka_app image` builds our Kafka image (kafka_app/container).

Usage: `python -m kafka_app --help`.
"""

from __future__ import annotations

import sys

from kafka_app.cli import run_cli

if __name__ == "__main__":
    sys.exit(run_cli())
