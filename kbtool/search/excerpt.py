"""An excerpt of a page around the first match of a query, with the matches marked.

The same algorithm is in ``assets/search.js``, so the terminal and the browser show the same
excerpt. Pieces are plain text with a flag; whoever shows them escapes them (the browser
puts them in with ``textContent``), so page text can never become markup.
"""

from __future__ import annotations

import re

from kbtool.search.text import SearchDoc
from kbtool.search.tokens import CJK, is_cjk, normalise

#: Characters shown before the first match, and in all.
BEFORE = 40
LENGTH = 180
_WORD_CHAR = re.compile(f"[^\\W_{CJK}]")

Piece = tuple[str, bool]


def _at_word_start(lower: str, i: int, needle: str) -> bool:
    """A word needle matches only at the start of a word: ``former`` is not in
    ``transformer``; a CJK needle matches anywhere."""
    if is_cjk(needle[0]) or i == 0:
        return True
    return not _WORD_CHAR.match(lower[i - 1])


def _first(lower: str, needles: list[str]) -> int:
    best = -1
    for needle in needles:
        i = lower.find(needle)
        while i >= 0 and not _at_word_start(lower, i, needle):
            i = lower.find(needle, i + 1)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def excerpt(doc: SearchDoc, needles: tuple[str, ...] | list[str]) -> list[Piece]:
    """The excerpt of ``doc`` for ``needles`` (normalised query words and CJK runs)."""
    text = (doc.body or doc.card.summary).replace("\n", " ")
    lower = normalise(text)
    wanted = sorted({n for n in needles if n}, key=lambda n: (-len(n), n))
    at = _first(lower, wanted)
    start = max(0, at - BEFORE) if at >= 0 else 0
    end = min(len(text), start + LENGTH)
    pieces: list[Piece] = [("…", False)] if start > 0 else []
    plain = start
    i = start
    while i < end:
        for needle in wanted:
            if lower.startswith(needle, i) and _at_word_start(lower, i, needle):
                if plain < i:
                    pieces.append((text[plain:i], False))
                stop = min(i + len(needle), len(text))
                pieces.append((text[i:stop], True))
                i = plain = stop
                break
        else:
            i += 1
    if plain < end:
        pieces.append((text[plain:end], False))
    if end < len(text):
        pieces.append(("…", False))
    return pieces


def within(pieces: list[Piece]) -> bool:
    """Whether an excerpt shows a match and ends before its text does: then a longer text
    with the same beginning gives the same excerpt (so a page cut in its page file needs
    no more of its text)."""
    return any(marked for _, marked in pieces) and pieces[-1] == ("…", False)


def plain_text(pieces: list[Piece]) -> str:
    return "".join(text for text, _ in pieces)
