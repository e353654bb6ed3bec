"""The broker's disk: the data folder, partition logs and their segments, record batches as
storage reads them, timestamps, retention, topic configs, crash-safe metadata files.
"""
