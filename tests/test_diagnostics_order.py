"""Diagnostics sort by one key each, in the order of their fields."""

from __future__ import annotations

import random

from kbtool.diagnostics import Diagnostic, sort_key


def test_the_sort_key_gives_the_fields_order() -> None:
    rng = random.Random(5)
    found = [
        Diagnostic(
            f"wiki/p{rng.randint(0, 9)}.md",
            rng.randint(1, 5),
            rng.randint(1, 3),
            rng.choice(["KB201", "KB207"]),
            rng.choice(["error", "warning"]),
            rng.choice(["a", "b"]),
            "fix",
        )
        for _ in range(300)
    ]
    assert sorted(found, key=sort_key) == sorted(found)


def test_a_diagnostic_without_a_fix_sorts_first() -> None:
    with_fix = Diagnostic("a.md", 1, 1, "KB201", "error", "m", "x")
    without = Diagnostic("a.md", 1, 1, "KB201", "error", "m")
    assert sorted([with_fix, without], key=sort_key) == [without, with_fix]
