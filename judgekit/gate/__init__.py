"""The gate: a change compared with its baseline, task by task, noise-aware."""
