"""GitHub-style heading slugs: the one slug function for the checker and the site."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# Anything that is not a word character (letters of any script, digits, `_`), `-` or a space.
_DROPPED = re.compile(r"[^\w\- ]", re.UNICODE)


def slugify(text: str) -> str:
    """Lower-case, punctuation dropped, spaces to ``-``, CJK kept.

    >>> slugify("1. 缩放点积注意力（Scaled Dot-Product Attention）")
    '1-缩放点积注意力scaled-dot-product-attention'
    """
    return _DROPPED.sub("", text.strip().lower()).replace(" ", "-")


def unique_slugs(texts: Iterable[str]) -> Iterator[str]:
    """Slugs for headings in order, ``-1``, ``-2``... appended to repeats, as GitHub does.

    >>> list(unique_slugs(["Notes", "Notes", "Notes-1"]))
    ['notes', 'notes-1', 'notes-1-1']
    """
    seen: set[str] = set()
    counts: dict[str, int] = {}
    for text in texts:
        base = slugify(text)
        slug = base
        while slug in seen:
            counts[base] = counts.get(base, 0) + 1
            slug = f"{base}-{counts[base]}"
        seen.add(slug)
        yield slug
