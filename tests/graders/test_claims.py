"""The "claims success" heuristic behind "claimed success but failed"."""

from __future__ import annotations

import pytest

from judgekit.graders.claims import claims_success


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("Refund of $40 issued for A100.", True),
        ("A101 is cancelled.", True),
        ("Booked AA123 for Friday.", True),
        ("Sorry, I could not cancel A101.", False),
        ("I can't refund more than the $90 total.", False),
        ("Unfortunately the order was not processed.", False),
        ("It is raining in Denver, so I did not book AA200.", False),
        ("I'm unable to find that order.", False),
        ("", None),
        ("   ", None),
        (None, None),
    ],
)
def test_claims_success(answer: str | None, claims: bool | None) -> None:
    assert claims_success(answer) is claims


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("SORRY, REFUND DECLINED.", False),
        ("We CANNOT do that.", False),
        ("NOT BEEN PROCESSED yet", False),
        ("Apologies.", False),
        ("Refund DONE.", True),
        ("unsorryable", True),  # a word boundary, not a substring
        ("Ich kann nicht: SORRY — Entschuldigung.", False),  # not ASCII: the IGNORECASE path
        ("Erledigt — REFUNDED.", True),
        ("ſorry", False),  # long s folds to s under IGNORECASE, as before
        ("Kannot", True),
    ],
)
def test_claims_success_ignores_case_in_ascii_and_other_text(answer: str, claims: bool) -> None:
    assert claims_success(answer) is claims
