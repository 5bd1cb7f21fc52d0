"""Where each part of the index lives under ``site/search/``, and its fixed numbers.

- ``meta.js``       pages, shard counts, format version (the client reads it first);
- ``priors.js``     each page's standing: its in-links and whether it is a source
                    (:mod:`kbtool.search.priors`), read by every query;
- ``s/<hex>.js``    a shard: term -> posting list, or ``"@<name>"`` for a long list kept in
                    ``t/<name>.js`` (its heads) and ``p/<name>.js`` (its positions) of its
                    own, so a query for a rare term does not download the lists of common
                    ones that share its shard, nor a query that needs no positions theirs;
- ``w/<hex>.js``    the words (not CJK) by their first two characters, with their page
                    counts: what a last word typed as a prefix can expand to;
- ``d/<n>.js``      pages' :class:`~kbtool.search.text.SearchDoc` (title, URL, excerpt
                    text), a few consecutive ids to a file (:mod:`kbtool.search.pagefiles`),
                    loaded only for the results on screen;
- ``c/<n>.js``      the rest of the text of the pages of ``d/<n>.js`` longer than it holds,
                    loaded only for an excerpt of a match past the cut;
- ``x/<hex>.js``    the update segment (:mod:`kbtool.search.update`);
- ``main.json``     the main part's page table: path -> id, digest, body length (for
                    updates; written with the main part, which no update changes);
- ``pages.json``    the rest of what an update needs: the update segment's table, the
                    sizes of the files, and which index this is.
"""

from __future__ import annotations

from kbtool.search.codec import fnv1a

VERSION = 5
FOLDER = "search"
META = "meta.js"
PRIORS = "priors.js"
TABLE = "pages.json"
MAIN_TABLE = "main.json"
#: A posting list longer than this (characters) gets a file of its own.
LONG_LIST = 1200
#: Most words a prefix expands to (the commonest first).
MAX_EXPANSIONS = 40
#: Order keys: a page of the main part with id ``n`` sorts at ``(n + 1) * ORDER``; a page
#: added by an update gets a key between its neighbours by path (``meta.delta.keys``), so
#: equal scores fall in path order, as in a clean build, whatever the ids.
ORDER = 4096


def order_key(doc: int, keys: dict[int, int]) -> int:
    return keys.get(doc, (doc + 1) * ORDER)


#: Terms a shard holds, about: a query downloads a shard for each of its terms, so a shard's
#: size follows the vocabulary, not the page count (a wiki of Chinese prose has a hundred
#: times the distinct bigrams of one that repeats a few words).
SHARD_TERMS = 64


def shard_count(terms: int) -> int:
    """Term shards for an index of about ``terms`` distinct terms: a power of two, at least
    ``terms / SHARD_TERMS``, from 16 to 16,384."""
    count = 16
    while count * SHARD_TERMS < terms and count < 16384:
        count *= 2
    return count


def vocab_count(shards: int) -> int:
    return max(4, shards // 8)


def shard_file(name: str) -> str:
    return f"s/{name}.js"


def long_name(term: str) -> str:
    return f"{fnv1a(term):08x}{fnv1a(chr(1) + term):08x}"[:12]


def long_file(name: str) -> str:
    return f"t/{name}.js"


def places_file(name: str) -> str:
    return f"p/{name}.js"


def vocab_file(name: str) -> str:
    return f"w/{name}.js"


def vocab_key(word: str) -> str:
    return word[:2]
