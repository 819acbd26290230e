"""gc_paused: the cyclic collector off inside, restored after, nesting and on errors."""

from __future__ import annotations

import gc

import pytest

from judgekit._util.gc_pause import gc_paused


def test_collector_is_off_inside_and_back_on_after_nested_blocks_and_errors() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block leaves the outer one's state
    assert gc.isenabled()
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_switched_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
