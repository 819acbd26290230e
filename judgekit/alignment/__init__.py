"""Alignment from disagreements: ``judgekit align`` proposes a new rubric version.

The judge's disagreements with the hand labels of the **dev** split (never the test split,
which ``judgekit promote`` measures once) become candidates: few-shot examples chosen from
them (:mod:`~judgekit.alignment.examples`) and, with an optimizer model, instructions
rewritten from them (:mod:`~judgekit.alignment.optimizer`). Each candidate is judged on dev
out of fold — the examples of a fold's runs come from the other folds only — and compared
with the current rubric by a paired bootstrap of the kappa difference
(:mod:`~judgekit.alignment.evaluation`). The best is written as a new draft version only
when the lower bound of its gain is above zero (:mod:`~judgekit.alignment.align`).

Import the members from their modules (``from judgekit.alignment.align import align``):
this package loads nothing on its own, so ``judgekit --help`` stays light.
"""
