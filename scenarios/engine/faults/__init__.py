"""Faults the scenarios inject from outside the apps: a network cut (the TCP proxy), a kill -9
aimed at a moment of a micro-batch, and the seeded schedule every random fault is drawn from
(`schedule.py`), which the nemesis applies (`appliers.py`)."""
