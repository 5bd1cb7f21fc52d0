"""Which files an edit changed, told from two snapshots' digests, for a value a session holds
whole and patches for them (the check's state of every page, the site facts'). Comparing two
dictionaries' items is done in C: a save no longer passes over every page in Python."""

from __future__ import annotations

from collections.abc import Mapping

#: Past this share of the pages changed (a branch switch), patching saves nothing.
MOST = 0.25


def edited_since(then: Mapping[str, str], now: Mapping[str, str]) -> set[str] | None:
    """The paths whose digest differs from ``then`` to ``now``, if the same paths are in both
    and not most of them changed; else None (the value is made again)."""
    if len(now) != len(then):
        return None
    edited = {path for path, _ in now.items() ^ then.items()}
    if not edited.issubset(then) or len(edited) > MOST * len(now):
        return None  # a page came and another went, or a branch switch
    return edited
