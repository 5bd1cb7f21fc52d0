"""The files of one index folder, as the query side reads them: ``meta.js``, posting lists
(with the update segment merged in), the words for prefixes and misspellings, and the pages.
"""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

from kbtool.search import layout
from kbtool.search.codec import decode, shard_of, unscript
from kbtool.search.pagefiles import decode_starts, whole_doc
from kbtool.search.postings import Entry, decode_entries, decode_heads
from kbtool.search.text import SearchDoc

#: Most indexed words a misspelt word stands for.
FUZZY_WORDS = 5


class IndexMissing(Exception):
    """There is no readable index in the folder."""


class IndexFiles:
    """The files of one index folder, each read and decoded at most once."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._files: dict[str, Any] = {}
        self._lists: dict[str, dict[int, Entry]] = {}
        self._dead_ids: set[int] | None = None
        self._starts: list[int] | None = None
        self._standings: list[int] | None = None
        try:
            self.meta: dict[str, Any] = unscript((folder / layout.META).read_bytes())
        except (OSError, ValueError) as error:
            raise IndexMissing(str(error)) from error
        if self.meta.get("version") != layout.VERSION:
            raise IndexMissing(f"index format {self.meta.get('version')} is not {layout.VERSION}")
        labels = self.meta.get("labels")
        self.labels: dict[str, str] = labels if isinstance(labels, dict) else {}

    def load(self, name: str) -> Any:
        if name not in self._files:
            try:
                self._files[name] = unscript((self.folder / f"{name}.js").read_bytes())
            except FileNotFoundError:
                self._files[name] = None
        return self._files[name]

    def postings(self, term: str, positions: bool = False) -> dict[int, Entry]:
        """The pages that have ``term``: id -> entry (main shards, less the dead pages, and
        the update segment). A long list's entries have their positions only if asked for:
        they are a file of their own."""
        key = ("+" if positions else "") + term
        if key not in self._lists:
            if not positions and "+" + term in self._lists:
                return self._lists["+" + term]
            shard = self.load("s/" + shard_of(term, self.meta["shards"])) or {}
            posting = shard.get(term)
            entries: list[Entry] = []
            if isinstance(posting, str) and posting.startswith("@"):
                heads = self.load("t/" + posting[1:])
                places = self.load("p/" + posting[1:]) if positions else None
                if isinstance(heads, str):
                    entries = decode_heads(heads).entries(places if positions else None)
            elif isinstance(posting, str):
                entries = decode_entries(posting)
            delta = self.meta.get("delta")
            if delta:
                dead = self._dead()
                entries = [e for e in entries if e.doc not in dead]
                segment = self.load("x/" + shard_of(term, delta["shards"])) or {}
                if isinstance(segment.get(term), str):
                    entries += decode_entries(segment[term])
            self._lists[key] = {e.doc: e for e in entries}
        return self._lists[key]

    def order_keys(self) -> dict[int, int]:
        """The order keys of the pages an update added (see :data:`layout.ORDER`)."""
        delta = self.meta.get("delta") or {}
        return {int(doc): int(key) for doc, key in delta.get("keys", [])}

    def standing(self, doc: int) -> int:
        """The page's standing (:mod:`kbtool.search.priors`); 0 if the index has none."""
        if self._standings is None:
            data = self.load(layout.PRIORS.removesuffix(".js"))
            self._standings = decode(data) if isinstance(data, str) else []
        return self._standings[doc] if doc < len(self._standings) else 0

    def label(self, page_type: str) -> str:
        """What the site calls ``page_type``."""
        return str(self.labels.get(page_type, page_type))

    def _dead(self) -> set[int]:
        if self._dead_ids is None:
            self._dead_ids = set(self.meta["delta"]["dead"])
        return self._dead_ids

    def _words(self, prefix: str) -> dict[str, int]:
        """The indexed words that share ``prefix``'s first two characters, with page counts."""
        words = dict(self.load("w/" + shard_of(prefix[:2], self.meta["vocab"])) or {})
        if self.meta.get("delta"):
            for word, count in (self.load("x/words") or {}).items():
                words[word] = words.get(word, 0) + count
        return words

    def expand(self, prefix: str) -> list[str]:
        """The indexed words that start with ``prefix``, commonest first."""
        words = self._words(prefix)
        # An update's counts may take a word's pages down to none: it is then not indexed.
        found = [w for w in words if w.startswith(prefix) and words[w] > 0]
        found.sort(key=lambda w: (-words[w], w))
        return found[: layout.MAX_EXPANSIONS]

    def similar(self, word: str) -> list[str]:
        """The indexed words one edit (or one swap of neighbours) from ``word`` that share
        its first two characters, commonest first: what a misspelt word stands for."""
        words = self._words(word)
        found = [w for w in words if words[w] > 0 and one_edit(word, w)]
        found.sort(key=lambda w: (-words[w], w))
        return found[:FUZZY_WORDS]

    def doc(self, doc_id: int) -> SearchDoc | None:
        """The page's SearchDoc, whole (its continuation read if its page file cut it)."""
        found = self._entry(doc_id)
        if found is None:
            return None
        entry, chunk, at = found
        return whole_doc(entry, self.load(f"c/{chunk}") if entry.get("more") else None, at)

    def doc_part(self, doc_id: int) -> tuple[SearchDoc, bool] | None:
        """The page's SearchDoc as its page file holds it, and whether its text was cut there
        (what the browser has before it reads a continuation)."""
        found = self._entry(doc_id)
        if found is None:
            return None
        try:
            return SearchDoc.from_json(found[0]), bool(found[0].get("more"))
        except (TypeError, KeyError, ValueError):  # a damaged index: skip the page
            return None

    def _entry(self, doc_id: int) -> tuple[dict[str, Any], int, int] | None:
        if self._starts is None:
            self._starts = decode_starts(self.meta.get("chunks", ""))
        chunk = bisect.bisect_right(self._starts, doc_id) - 1
        data = self.load(f"d/{chunk}")
        try:
            at = doc_id - data["first"]
            entry = data["docs"][at]
        except (TypeError, KeyError, IndexError):  # a damaged index: skip the page
            return None
        return (entry, chunk, at) if isinstance(entry, dict) else None


def one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one character changed, added or removed, or two
    neighbours swapped.

    >>> one_edit("transfomer", "transformer"), one_edit("polciy", "policy")
    (True, True)
    >>> one_edit("policy", "policy"), one_edit("policy", "police"), one_edit("pol", "policy")
    (False, True, False)
    """
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        swapped = i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i]
        return a[i + 1 :] == b[i + 1 :] or (swapped and a[i + 2 :] == b[i + 2 :])
    return a[i:] == b[i + 1 :] if len(a) < len(b) else a[i + 1 :] == b[i:]
