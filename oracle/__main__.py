"""`python -m oracle`: see oracle/cli.py."""

import sys

from oracle.cli import run_cli

sys.exit(run_cli())
