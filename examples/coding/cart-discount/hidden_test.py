"""The hidden grader of cart-discount: copied into the agent's workdir only after it exits."""

from cart import total


def test_threshold_exact() -> None:
    assert total([(2500, 2)], "SAVE10") == 4500


def test_below_threshold_no_discount() -> None:
    assert total([(4999, 1)], "SAVE10") == 4999


def test_result_is_int() -> None:
    assert isinstance(total([(3333, 3)], "SAVE10"), int)
