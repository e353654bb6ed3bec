"""The lines the Spark app prints that other processes read, one owner per line: the output
line (`output_line`), the batch line (`batch_line`), the data-loss words (`data_loss_lines`),
transformWithState's timer and TTL events (`state_events`), the one batch read's lines
(`read_lines`), the new checkpoint's line (`start_lines`), the known-bug lines and the table of
what each Spark line does (`known_spark_bugs`, `known_bug_table`), and the template they share
(`line_template`).

Every module here is a contract: the scenarios, the demo and the benchmarks read these lines
back with the parser that sits beside the formatter. None of them imports pyspark, so a reader
never starts Spark to read a line (tests/test_app_contracts.py holds both rules).
"""
