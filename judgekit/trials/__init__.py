"""Repeated trials: fresh worlds, agents run in-process or as subprocesses, results as they finish."""
