"""Bias probes: the judge re-asked on perturbed runs (an answer padded with neutral filler,
the pair or the prompt's sections swapped) or compared on its own model's runs, and the
flip rate with its interval written for the promotion policy (``judgekit probe``)."""
