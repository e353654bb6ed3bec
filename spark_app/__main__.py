"""`python -m spark_app`: the stateful streaming counter; `python -m spark_app inspect`: the
checkpoint explained."""

import sys

from spark_app.cli import run_cli

if __name__ == "__main__":
    sys.exit(run_cli())
