"""`python -m kafka_app.broker`: the same as `python -m kafka_app broker`."""

import sys

from kafka_app.broker.cli import main

sys.exit(main(sys.argv[1:]))
