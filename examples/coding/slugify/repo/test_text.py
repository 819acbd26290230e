from text import slugify


def test_two_words() -> None:
    assert slugify("Hello World") == "hello-world"
