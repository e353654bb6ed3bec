"""Where the app runs: the Spark session and its checks, the PySpark version, the class-data
archive, a standalone cluster, slowed checkpoint writes, spark.log.
"""
