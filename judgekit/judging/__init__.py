"""LLM judges: loading rubrics, rendering judge prompts and reading the judges' verdicts.

- :mod:`judgekit.formats.rubric_file` loads ``rubrics/<id>.yaml`` with one-line file:line
  errors and computes a rubric's version (the hash of what changes a verdict).
- :mod:`judgekit.judging.prompts` turns a rubric and a run into chat messages, with the
  agent's text quoted so that it cannot pose as the grader's instructions.
- :mod:`judgekit.judging.verdict_parsing` reads a judge's answer as a score on the scale, or
  says what is wrong with it in words a repair prompt can quote.
"""
