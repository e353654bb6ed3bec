"""The run layer: which runs happen and what is done around them. One scenario or all of them
(`runner`), several at a time (`jobs`, `run -j`), a share for one of several machines
(`shards`) and the shards' reports joined (`merge`), a matrix of PySpark versions, Kafka
versions or stacks (`matrix`), one Kafka for a run's scenarios (`shared_kafka`), Spark's class
archive written between scenarios (`class_archive`), and the jars fetched before anything
starts (`jar_prefetch`). Its processes start through `launch/`.

It sits above the engine, the catalog and the report, and reads them all; none of them imports
it (tests/test_layers.py holds that).
"""
