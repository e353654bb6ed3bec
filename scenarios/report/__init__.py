"""What a run shows and leaves: the narration as it runs, the timeline picture, the verdict table,
JSON and JUnit reports.
"""
