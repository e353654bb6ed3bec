"""The machinery scenarios run on: the stage and its parts, the processes, the registry,
the runner, settings, the Spark version matrix and environments, fault injectors and observers.
"""
