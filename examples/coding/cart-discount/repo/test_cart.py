from cart import total


def test_no_code_no_discount() -> None:
    assert total([(1000, 2)]) == 2000


def test_discount_above_threshold() -> None:
    assert total([(3000, 2)], "SAVE10") == 5400


def test_discount_at_threshold() -> None:
    assert total([(5000, 1)], "SAVE10") == 4500
