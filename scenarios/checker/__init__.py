"""The verdict, as pure code: the output log and what was sent in, missing, doubled and
miscounted out; expectations stated before and compared after.
"""
