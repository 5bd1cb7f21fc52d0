"""The reuse layer: a value is valid while its key is equal, and in no other way; the one lazy
mapping gets what is missing in batches, each value once."""

from __future__ import annotations

import pytest

from kbtool.reuse.lazy import Lazy
from kbtool.reuse.values import Reusable, Reuse

SQUARES: Reusable[int, int] = Reusable("squares", "the number")


def test_a_value_is_made_again_exactly_when_its_key_changes() -> None:
    reuse, made = Reuse(), []

    def square(name: str, n: int) -> int:
        made.append(name)
        return n * n

    assert reuse.made(SQUARES, "a", 3, square) == 9
    assert reuse.made(SQUARES, "a", 3, square) == 9
    assert reuse.made(SQUARES, "a", 4, square) == 16
    assert made == ["a", "a"]
    assert reuse.get(SQUARES, "a", 3) is None and reuse.get(SQUARES, "a", 4) == 16


def test_forgetting_and_updating_keep_to_names_and_keys() -> None:
    reuse = Reuse()
    for name, n in (("a", 1), ("b", 2), ("c", 3)):
        reuse.put(SQUARES, name, n, n * n)
    reuse.keep_only(SQUARES, {"a", "c"})
    reuse.update(SQUARES, "a", lambda v: v + 100)
    reuse.update(SQUARES, "b", lambda v: v + 100)  # gone: nothing to update
    reuse.drop(SQUARES, "c")
    assert reuse.held(SQUARES) == {"a": (1, 101)}
    other: Reusable[int, int] = Reusable("cubes", "the number")
    assert reuse.held(other) == {}  # each declaration holds its own values


def test_the_lazy_mapping_gets_what_is_missing_in_one_batch_each_once() -> None:
    batches: list[list[str]] = []

    def get(batch: dict[str, int]) -> dict[str, int]:
        batches.append(sorted(batch))
        return {name: n * 10 for name, n in batch.items()}

    values: Lazy[int, int] = Lazy(get, {"a": 0}, {"b": 1, "c": 2, "d": 3}, ["a", "b", "c", "d"])
    assert list(values) == ["a", "b", "c", "d"] and batches == []
    assert values.load(["b", "c", "x"]) == {"b": 10, "c": 20}
    assert values["b"] == 10 and batches == [["b", "c"]]
    assert dict(values.items()) == {"a": 0, "b": 10, "c": 20, "d": 30}
    assert batches == [["b", "c"], ["d"]]
    with pytest.raises(KeyError):
        values["x"]


def test_a_subset_gets_its_own_values_only() -> None:
    batches: list[list[str]] = []

    def get(batch: dict[str, int]) -> dict[str, int]:
        batches.append(sorted(batch))
        return {name: -n for name, n in batch.items()}

    values: Lazy[int, int] = Lazy(get, {}, {"a": 1, "b": 2, "c": 3})
    part = values.subset(["c", "a", "x"])
    assert list(part) == ["c", "a"] and part.at_hand() == {}
    part.update({"c": 33, "z": 0})
    assert dict(part.items()) == {"c": 33, "a": -1, "z": 0} and batches == [["a"]]
    assert values.got("a") is None  # the whole is untouched
