"""What the scenarios watch without touching: Kafka's offsets, the checkpoint over time, memory,
Spark's event log and executor processes.
"""
