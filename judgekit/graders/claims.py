"""Does a final answer claim success? ("Refund issued." while the world says otherwise.)

A heuristic on the wording: an answer claims success unless it says it could not, would
not or did not do the thing. It exists to surface the quiet failure "claimed success but
failed"; it never decides a grade.
"""

from __future__ import annotations

import re

_NOT_DONE = re.compile(
    r"\b(?:cannot|can't|can ?not|couldn't|could not|unable|not able|won't|will not|"
    r"didn't|did not|wasn't|was not|failed|failure|unfortunately|sorry|apolog|"
    r"not possible|no longer|refuse|declin|not (?:been )?(?:processed|completed|booked|issued))",
    re.IGNORECASE,
)
# The same words, for ASCII text already lowered: on ASCII, IGNORECASE folds only A-Z, as
# str.lower() does, and more slowly.
_NOT_DONE_ASCII = re.compile(_NOT_DONE.pattern)


def claims_success(final_answer: str | None) -> bool | None:
    """True when the answer sounds done, False when it admits failure, None with no answer.

    >>> claims_success("Refund of $40 issued for A100.")
    True
    >>> claims_success("Sorry, I could not cancel A101.")
    False
    """
    if final_answer is None or not final_answer.strip():
        return None
    if final_answer.isascii():  # the usual case: lowered once, searched without IGNORECASE
        return _NOT_DONE_ASCII.search(final_answer.lower()) is None
    return _NOT_DONE.search(final_answer) is None
