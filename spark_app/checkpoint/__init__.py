"""Reading a checkpoint folder without Spark: its files, what a restart needs from them, the
state schema Spark will hold a restart to, and `python -m spark_app inspect`.
"""
