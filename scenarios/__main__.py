"""Entry point: `python -m scenarios list | run NAME…|all | verify [FILE]`."""

import sys

from scenarios.cli import run_cli

if __name__ == "__main__":
    sys.exit(run_cli(sys.argv[1:]))
