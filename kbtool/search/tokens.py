"""Text -> index terms, and a query -> what each of its parts must match.

Both sides use one token stream. Text is lower-cased, then read as a sequence of tokens:

- a **word** is a run of letters and digits that are not CJK (``sim2real``, ``π0``, ``rt``
  and ``2`` of ``RT-2``; ``_`` splits, so ``d_model`` is ``d`` ``model``); one position each;
- a **CJK run** (ideographs, kana, Hangul) takes one position per character and is indexed as
  its overlapping **bigrams**, each at the position of its first character, and a run is
  followed by a gap of one position. A query run of two or more characters is then its
  bigrams at their offsets from one position, which is true exactly when the text contains
  the run: substring semantics, as Lucene's CJK analyser gives. Punctuation ends a run, so
  ``注意。意力`` does not contain ``注意力``.
- single CJK characters are indexed too, but only in the title, tags and summary, where a
  one-character query is answered.

Fields follow one another in one stream, a position apart, so a phrase never spans two.
The browser's ``assets/search.js`` implements the same rules; tests hold the two together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

#: Characters indexed as bigrams (BMP CJK ideographs, kana, Hangul). Same class in search.js.
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
#: one byte per code point up to the last CJK one, 1 where it is CJK: made in microseconds
#: at import, where a set of its 39,472 characters took 20 ms in every command that searches
_CJK_RANGES = [(ord(lo), ord(hi) + 1) for lo, hi in re.findall("(.)-(.)", CJK)]
_CJK_TABLE = bytearray(max(end for _, end in _CJK_RANGES))
for _start, _end in _CJK_RANGES:
    _CJK_TABLE[_start:_end] = b"\x01" * (_end - _start)


def is_cjk(char: str) -> bool:
    """Whether ``char`` is one of the characters indexed as bigrams."""
    code = ord(char)
    return code < len(_CJK_TABLE) and _CJK_TABLE[code] == 1


#: A CJK run, or a word: letters/digits (Unicode), not CJK, not ``_``.
TOKEN = re.compile(f"([{CJK}]+)|[^\\W_{CJK}]+")
#: Key prefix of the terms that mark a page's whole title, for "exact title match first",
#: and of those that mark its short title (the part before a bracket or colon), next.
TITLE_KEY = "="
SHORT_KEY = "^"
_SHORT = re.compile("[（(：:]")
#: Longest query taken (characters); the rest of a pasted page is ignored.
MAX_QUERY = 200
#: Most parts a query is split into; more add nothing but work.
MAX_PARTS = 12
_SURROGATE = re.compile("[\ud800-\udfff]")
_QUOTES = re.compile('["\u201c\u201d]')


def normalise(text: str) -> str:
    """Lower case, lone surrogates replaced: the text every comparison is made on.
    A character whose lower case is longer than itself (``İ``) stays as it is, so that
    offsets in the normalised text are offsets in the original."""
    text = _SURROGATE.sub("\ufffd", text)
    lower = text.lower()
    if len(lower) != len(text):
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return lower


def title_key(title: str, key: str = TITLE_KEY) -> str:
    """The term that a query equal to ``title`` (case and spacing aside) looks up."""
    return key + " ".join(normalise(title).split())


def short_title(title: str) -> str:
    """``title`` as people type it: the part before a bracket or colon.

    >>> short_title("Mamba（选择性状态空间模型）"), short_title("RT-1: Robotics Transformer")
    ('Mamba', 'RT-1')
    """
    return _SHORT.split(title, maxsplit=1)[0].strip()


def is_word(term: str) -> bool:
    """A word (not CJK, not a title key or filter term): what a prefix may expand to."""
    keyed = term.startswith((TITLE_KEY, SHORT_KEY))
    return not keyed and not is_cjk(term[0]) and ":" not in term


@dataclass
class FieldTerms:
    """Where each term of one field occurs: term -> positions, and the field's length."""

    positions: dict[str, list[int]]
    length: int


def field_terms(text: str, start: int, unigrams: bool) -> FieldTerms:
    """The terms of ``text`` with positions from ``start``."""
    positions: dict[str, list[int]] = {}
    pos = start
    for match in TOKEN.finditer(normalise(text)):
        run = match.group(1)
        if run is None:
            positions.setdefault(match.group(0), []).append(pos)
            pos += 1
            continue
        for at, gram in enumerate(map(str.__add__, run, run[1:]), pos):
            positions.setdefault(gram, []).append(at)
        if unigrams:
            for i, char in enumerate(run):
                positions.setdefault(char, []).append(pos + i)
        pos += len(run) + 1  # a gap: what follows a run is never adjacent to it
    return FieldTerms(positions, pos - start)


# -- queries ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    """One thing a part needs at ``offset`` from the part's start: any of ``terms``."""

    offset: int
    terms: tuple[str, ...]
    prefix: str = ""  # a last word still being typed: any indexed word that starts so


@dataclass(frozen=True)
class Part:
    """A word, a CJK run, a hyphenated token or a quoted phrase: its elements must occur at
    their offsets from one common position (one element: anywhere). A lone CJK run of three
    or more characters may also match **near**: its bigrams in order, a few positions apart."""

    elements: tuple[Element, ...]
    needles: tuple[str, ...]  # what excerpts highlight
    near: bool = False
    grams: tuple[str, ...] = ()  # a near part's bigrams, all of them: what a partial match counts


@dataclass(frozen=True)
class Query:
    """What a query asks for: optional ``words`` that rank, required ``phrases``, ``excluded``
    parts, and filters, each a tuple of alternative filter terms (``type:x``, ``tag:x``)."""

    text: str
    words: tuple[Part, ...]
    phrases: tuple[Part, ...]
    excluded: tuple[Part, ...]
    filters: tuple[tuple[str, ...], ...]
    unwanted: tuple[str, ...]  # filter terms after ``-``
    title: str  # the title key a query equal to a title finds

    @property
    def parts(self) -> tuple[Part, ...]:
        """The parts a page is ranked by (and an excerpt highlights)."""
        return self.words + self.phrases

    @property
    def empty(self) -> bool:
        return not (self.words or self.phrases or self.filters)


#: Filter names, and the prefix of the terms that carry them.
FILTERS = ("type", "tag")
_FILTER = re.compile(r"(type|tag):(\S+)")


def filter_term(kind: str, value: str) -> str:
    """The term a ``kind:value`` filter looks up (``tag:Deep  RL`` -> ``tag:deep rl``)."""
    return f"{kind}:{' '.join(normalise(value).split())}"


def _cover(length: int) -> list[int]:
    """Offsets of the bigrams that pin down a run of ``length`` characters: every other one
    and the last, since runs are set apart by a gap (``强化学习`` is 强化 at p and 学习 at
    p + 2), so a query downloads fewer posting lists.

    >>> _cover(1), _cover(2), _cover(3), _cover(4), _cover(5)
    ([0], [0], [0, 1], [0, 2], [0, 2, 3])
    """
    offsets = list(range(0, max(length - 1, 1), 2))
    if length > 2 and offsets[-1] != length - 2:
        offsets.append(length - 2)
    return offsets


def _part(text: str, prefix_last: bool) -> Part | None:
    elements: list[Element] = []
    needles: list[str] = []
    pos = 0
    runs = 0
    for match in TOKEN.finditer(text):
        run = match.group(1)
        if run is None:
            word = match.group(0)
            elements.append(Element(pos, (word,)))
            needles.append(word)
            pos += 1
        else:
            elements += [
                Element(pos + i, (run[i : i + 2] if len(run) > 1 else run,))
                for i in _cover(len(run))
            ]
            needles.append(run)
            pos += len(run) + 1
            runs += 1
    if not elements:
        return None
    last = elements[-1]
    if prefix_last and not is_cjk(last.terms[0][0]) and len(last.terms[0]) >= 2:
        elements[-1] = Element(last.offset, last.terms, prefix=last.terms[0])
    near = runs == 1 and len(needles) == 1 and len(elements) > 1
    grams = tuple(dict.fromkeys(map(str.__add__, needles[0], needles[0][1:]))) if near else ()
    return Part(tuple(elements), tuple(needles), near, grams)


def _pieces(text: str) -> list[tuple[str, bool]]:
    """``(piece, quoted)`` of a query: its whitespace-separated pieces, a quoted phrase one."""
    pieces: list[tuple[str, bool]] = []
    for i, chunk in enumerate(_QUOTES.split(text)):
        if i % 2:  # odd chunks are inside quotes
            pieces.append((chunk, True))
        else:
            pieces += [(p, False) for p in chunk.split()]
    return [(p, quoted) for p, quoted in pieces if p.strip()][:MAX_PARTS]


def parse_query(text: str) -> Query:
    """What ``text`` asks for. Never raises; a query with no words has no parts.

    >>> q = parse_query('人形机器 "diffusion policy" -mpc type:concept sim2')
    >>> [len(p.elements) for p in q.words], len(q.phrases), len(q.excluded), q.filters
    ([2, 1], 1, 1, (('type:concept',),))
    """
    text = normalise(text[:MAX_QUERY])
    typing = bool(text) and not text[-1].isspace() and not _QUOTES.match(text[-1])
    pieces = _pieces(text)
    words: list[Part] = []
    phrases: list[Part] = []
    excluded: list[Part] = []
    filters: dict[str, list[str]] = {}
    unwanted: list[str] = []
    for i, (piece, quoted) in enumerate(pieces):
        negative = not quoted and piece.startswith("-")
        body = piece[1:] if negative else piece
        wanted = _FILTER.fullmatch(body) if not quoted else None
        if wanted:
            term = filter_term(wanted.group(1), wanted.group(2))
            if negative:
                unwanted.append(term)
            else:
                filters.setdefault(wanted.group(1), []).append(term)
            continue
        part = _part(body, typing and not negative and not quoted and i == len(pieces) - 1)
        if part is not None:
            (excluded if negative else phrases if quoted else words).append(part)
    rest = [p for p, quoted in pieces if quoted or not (p.startswith("-") or _FILTER.fullmatch(p))]
    return Query(
        text,
        tuple(words),
        tuple(phrases),
        tuple(excluded),
        tuple(tuple(terms) for _, terms in sorted(filters.items())),
        tuple(unwanted),
        title_key(" ".join(rest)),
    )


def words(text: str) -> Iterator[str]:
    """The words (not CJK) of ``text``, normalised."""
    for match in TOKEN.finditer(normalise(text)):
        if match.group(1) is None:
            yield match.group(0)
