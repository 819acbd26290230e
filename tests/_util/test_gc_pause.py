"""gc_paused: the cyclic collector off inside, restored after, nesting and on errors; what a
large block leaves moved to the oldest generation."""

from __future__ import annotations

import gc

import pytest

from judgekit._util import gc_pause
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


def _generation_of(thing: object) -> int | None:
    for generation in range(3):
        if any(found is thing for found in gc.get_objects(generation)):
            return generation
    return None


@pytest.fixture
def promote_at_5000(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gc_pause, "PROMOTE_AT", 5000)
    gc.collect()  # the youngest generation's count starts at 0


@pytest.mark.usefixtures("promote_at_5000")
def test_a_block_that_leaves_many_objects_has_them_moved_to_the_oldest_generation() -> None:
    with gc_paused():
        built = [[index] for index in range(10_000)]
    assert (_generation_of(built), _generation_of(built[-1])) == (2, 2)
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


@pytest.mark.usefixtures("promote_at_5000")
def test_a_block_that_leaves_few_objects_leaves_them_young() -> None:
    with gc_paused():
        built = [[index] for index in range(100)]
    assert _generation_of(built) == 0


@pytest.mark.usefixtures("promote_at_5000")
def test_objects_frozen_by_the_caller_stay_frozen() -> None:
    frozen = [[1]]
    gc.freeze()
    try:
        held = gc.get_freeze_count()
        with gc_paused():
            built = [[index] for index in range(10_000)]
        assert gc.get_freeze_count() == held
        assert _generation_of(frozen) is None  # still in the permanent generation
        assert _generation_of(built) in (0, 1)  # collected as usual, not moved to the oldest
    finally:
        gc.unfreeze()


@pytest.mark.usefixtures("promote_at_5000")
def test_an_inner_block_moves_nothing_while_the_outer_one_runs() -> None:
    with gc_paused():
        with gc_paused():
            built = [[index] for index in range(10_000)]
        assert _generation_of(built) == 0
    assert _generation_of(built) == 2
