"""`python -m checkpoint_stores hdfs|s3`: see cli.py."""

import sys

from checkpoint_stores.cli import main

sys.exit(main())
