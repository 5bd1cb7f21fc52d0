"""KB307 and KB308: pages that say the same thing twice, as two ingest runs write them.

KB307 is pages of the same title, compared normalised (Unicode NFKC, case folded, spaces
collapsed). KB308 is pages of one kind whose bodies are nearly the same: each body is cut into
sentences (at ``。！？；.!?;`` and line breaks; only the letters, digits and CJK characters of
each kept, and only sentences of eight or more of them), each sentence is a shingle, and a
page's sketch is the :data:`SKETCH` smallest 32-bit hashes of its shingles (a bottom-k MinHash).
Two pages that share one of the few smallest values of their sketches (leaving out values that
many pages hold: a template's sentences) are compared, and the resemblance of their
sets estimated from the sketches (the share of the smallest values of both together that each
holds) is reported when it reaches the threshold (``duplicate-threshold``).

A sketch depends on its page's text alone, so a build keeps it as the page's record and
after an edit makes only the edited page's again.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
import zlib
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span

#: values kept of each page's shingle hashes
SKETCH = 64
#: a value held by more pages than this is boilerplate (a licence line, a template's
#: sentence), not evidence that two pages are one
_COMMON = 50
#: values of each sketch through which its page meets its candidate duplicates
_PROBES = 6
#: what a sentence keeps not: all but letters, digits and CJK (and the underscores of ``\w``,
#: taken out first: one character class is a third faster than a class or ``_+``)
_NOT_TEXT = re.compile(r"[^\w。！？；!?;.\n]+")
_SENTENCES = re.compile(r"[。！？；!?;.\n]+")
_MIN_SENTENCE = 8


def normal_title(title: str) -> str:
    """A title as two pages' titles are compared.

    >>> normal_title("  Transformer　模型 ") == normal_title("transformer 模型")
    True
    """
    return " ".join(unicodedata.normalize("NFKC", title).casefold().split())


def same_titles(titles: Mapping[str, tuple[str, str]]) -> Iterator[Diagnostic]:
    """KB307 on each page whose normalised title another page has; ``titles``: path ->
    (kind, title)."""
    by_title: dict[str, list[str]] = {}
    for path in sorted(titles):
        by_title.setdefault(normal_title(titles[path][1]), []).append(path)
    for group in by_title.values():
        for path in group if len(group) > 1 else ():
            others = ", ".join(f"'{p}'" for p in group if p != path)
            message = f"page '{others[1:-1]}' has the same title" if len(group) == 2 else ""
            message = message or f"pages {others} have the same title"
            yield diagnostic("KB307", Span(path), f"{message} '{titles[path][1]}'")


def sketch(text: str) -> bytes:
    """The bottom-k MinHash sketch of a page's body (``text`` without its frontmatter), as
    sorted unsigned 32-bit values; empty for a body without a sentence long enough."""
    kept = _NOT_TEXT.sub("", text.replace("_", "")).casefold()
    hashes = {
        zlib.crc32(sentence.encode("utf-8"))
        for sentence in _SENTENCES.split(kept)
        if len(sentence) >= _MIN_SENTENCE
    }
    return array("I", sorted(heapq.nsmallest(SKETCH, hashes))).tobytes()


def unpack(data: bytes) -> tuple[int, ...]:
    values = array("I")
    values.frombytes(data[: len(data) // values.itemsize * values.itemsize])
    return tuple(values)


def resemblance(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    """The Jaccard resemblance of two pages' shingle sets, estimated from their sketches: of
    the ``SKETCH`` smallest values of both, the share that both hold."""
    if not a or not b:
        return 0.0
    first, second = set(a), set(b)
    smallest = sorted(first | second)[:SKETCH]
    return sum(1 for v in smallest if v in first and v in second) / len(smallest)


def boilerplate(sketches: Mapping[str, tuple[str, tuple[int, ...]]]) -> frozenset[int]:
    """The values of more than ``_COMMON`` pages' sketches: no evidence that two pages are
    one. What a page meets its candidates through depends on them, so a check that keeps the
    pairs of the pages not edited keeps them only while these are the same."""
    held = Counter(chain.from_iterable(values for _, values in sketches.values()))
    return frozenset(value for value, count in held.items() if count > _COMMON)


def _probes(values: tuple[int, ...], common: frozenset[int]) -> list[int]:
    """The smallest values of a sketch that are not boilerplate: two sets of resemblance J
    share each value of the smallest of both with probability J, so a near duplicate shares
    one of these."""
    return [v for v in values if v not in common][:_PROBES]


def near_duplicates(
    sketches: Mapping[str, tuple[str, tuple[int, ...]]],
    threshold: float,
    common: frozenset[int] | None = None,
) -> list[tuple[str, str, float]]:
    """(page, other page, resemblance) of every pair of pages of one kind at or above
    ``threshold`` that share a probe, each pair once, the later path first; ``sketches``:
    path -> (kind, sketch); ``common``: their :func:`boilerplate`, if known."""
    common = boilerplate(sketches) if common is None else common
    holders: dict[tuple[str, int], list[str]] = {}
    for path, (kind, values) in sketches.items():
        for value in _probes(values, common):
            holders.setdefault((kind, value), []).append(path)
    pairs: set[tuple[str, str]] = set()
    for paths in holders.values():
        for i, first in enumerate(paths):
            for second in paths[i + 1 :]:
                pairs.add((first, second) if first < second else (second, first))
    return [found for pair in sorted(pairs) if (found := _alike(sketches, *pair, threshold))]


def pairs_with(
    sketches: Mapping[str, tuple[str, tuple[int, ...]]],
    paths: Iterable[str],
    threshold: float,
    common: frozenset[int],
) -> list[tuple[str, str, float]]:
    """The pairs of :func:`near_duplicates` that one of ``paths`` is in (after an edit: the
    few pages whose sketch changed), while ``common`` is what it was."""
    wanted = set(paths)
    probes = {path: set(_probes(values, common)) for path, (_, values) in sketches.items()}
    pairs = set()
    for path in wanted:
        kind = sketches[path][0]
        for other, (other_kind, _) in sketches.items():
            if other != path and other_kind == kind and not probes[path].isdisjoint(probes[other]):
                pairs.add((path, other) if path < other else (other, path))
    return [found for pair in sorted(pairs) if (found := _alike(sketches, *pair, threshold))]


def _alike(
    sketches: Mapping[str, tuple[str, tuple[int, ...]]], first: str, second: str, threshold: float
) -> tuple[str, str, float] | None:
    """(the later path, the earlier, resemblance) if two pages are at least ``threshold``
    alike (``first`` < ``second``)."""
    a, b = sketches[first][1], sketches[second][1]
    own = set(a)
    # a pair this alike shares at least that share of the smaller sketch's values
    if len(own.intersection(b)) < threshold * min(len(own), len(set(b))):
        return None
    score = resemblance(a, b)
    return (second, first, score) if score >= threshold else None


def near_duplicate_diagnostics(pairs: Iterable[tuple[str, str, float]]) -> Iterator[Diagnostic]:
    """KB308 on both pages of each pair."""
    for first, second, score in pairs:
        for path, other in ((first, second), (second, first)):
            message = (
                f"page '{other}' has nearly the same body ({score:.0%} of its sentences alike): "
                "merge them, or keep one and link the other to it"
            )
            yield diagnostic("KB308", Span(path), message)
