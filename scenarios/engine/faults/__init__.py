"""Faults the scenarios inject from outside the apps: a network cut (the TCP proxy)."""
