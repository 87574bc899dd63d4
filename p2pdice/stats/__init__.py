"""Statistics and ratings computed from saved transcripts that verify (docs/stats.md).

Pure: lines in, figures out. The command that finds the files is `cli/stats.py`; this package
reads no files and keeps no clock, so two machines holding the same games compute the same
figures to the last digit.
"""
