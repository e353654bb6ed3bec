"""Where the app runs: the Spark session (its plan and its checks), the PySpark version, the
class-data archive, a standalone cluster, slowed checkpoint writes, spark.log, and the app's one
crash-safe file write.
"""
