"""The one-terminal demo: both apps, their state at a glance, and keys to break things.

Usage: `python -m scenarios demo` (or `sys.exit(run_demo(sys.argv[1:]))`).
"""

from scenarios.demo.cli import run_demo

__all__ = ["run_demo"]
