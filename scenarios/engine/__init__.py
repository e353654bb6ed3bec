"""The world a scenario acts on: the stage and its parts (Kafka, the apps, a checkpoint store,
all started through launch/), the fault injectors (`faults/`) and the observers
(`observers/`), and what building that world needs: the run's settings and stack, the PySpark
environment of a Spark version (`spark_envs`), and the `Scenario` a catalog module declares
(`registry`). Which runs happen is the run layer's business (scenarios/run/).
"""
