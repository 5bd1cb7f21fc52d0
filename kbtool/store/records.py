"""Every kind of record the store holds, declared once: name, key, codec, the code behind it.

A record is valid while its key is unchanged. Each key is the parts the kind lists (computed
by the stage that asks) followed by the digest of the code that produces the value
(:func:`kbtool.store.code.code_digest` of the kind's producer module), so an edit to that code
makes the kind's records stale without anyone bumping a number. Kinds named by a page's path
are removed with the page (:meth:`kbtool.store.db.Store.forget_pages`).

The table in ``docs/architecture.md`` is this registry in words; a test keeps them equal.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from kbtool.model import Page
from kbtool.store.code import code_digest
from kbtool.store.codec import dump_page, dump_plain, load_page, load_plain


@dataclass(frozen=True)
class Codec:
    """How values of a kind are kept: ``decode`` returns None for a value it cannot trust."""

    name: str
    encode: Callable[[Any], bytes]
    decode: Callable[[bytes], Any]


def _json_decode(data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:  # damaged or foreign: a miss
        return None


def _json_encode(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    return text.encode("utf-8")


def _page_encode(value: Any) -> bytes:
    assert isinstance(value, Page)
    return dump_page(value)


JSON = Codec("json", _json_encode, _json_decode)
#: pickles of plain data, no class at all (see kbtool.store.codec): read faster than JSON, a
#: record of thousands of rows in a fifth of its time
PLAIN = Codec("plain pickle", dump_plain, load_plain)
#: a plain list, or nothing at all for an empty one: a run reads only records with something
PLAIN_LIST = Codec(
    "plain list, empty for none",
    lambda rows: dump_plain(rows) if rows else b"",
    lambda data: load_plain(data) if data else [],
)
#: pickles in which only the page model's classes may appear (see kbtool.store.codec)
PAGE_PICKLE = Codec("page pickle", _page_encode, load_page)
#: bytes the stage reads itself (fixed separators, chosen for speed), or nothing at all
RAW = Codec("raw", bytes, bytes)


def _files_encode(value: Any) -> bytes:
    if value["copies"] or value["diagnostics"]:
        return dump_plain(value)
    return "\0".join(value["files"]).encode("utf-8", "surrogatepass")


def _files_decode(data: bytes) -> Any:
    if data.startswith(b"\x80"):  # a pickle's first byte, which never starts UTF-8
        return load_plain(data)
    try:
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return None
    return {"files": text.split("\0") if text else []}


#: an output's files joined by NUL (which no file name holds) when it copied no file and
#: its rendering said nothing, as most outputs, else a plain pickle: a build in a new process
#: reads every output's record, and read so they take half the time a pickle takes
FILES_OR_PLAIN = Codec("files joined, else plain pickle", _files_encode, _files_decode)


@dataclass(frozen=True)
class RecordKind:
    name: str
    #: what the key is made of, besides the producer's code (documentation)
    key_parts: str
    codec: Codec
    #: the module whose code (with all it imports) determines the values
    producer: str
    #: named by a page's path, and removed with the page
    per_page: bool

    @cached_property
    def code(self) -> str:
        return code_digest(self.producer)

    def key(self, *parts: str) -> str:
        """The key of a record of this kind made from ``parts``, with the code's digest."""
        return ".".join((*parts, self.code))


PAGE = RecordKind(
    "page",
    "the file's content digest, the Markdown flavor",
    PAGE_PICKLE,
    "kbtool.parse.page",
    per_page=True,
)
BODY = RecordKind(
    "body",
    "the file's content digest, the site's language, the Markdown flavor",
    JSON,
    "kbtool.stages.pageworker",
    per_page=True,
)
SEARCH = RecordKind(
    "search",
    "the file's content digest, the site's language, the Markdown flavor",
    JSON,
    "kbtool.stages.pageworker",
    per_page=True,
)
TERMS = RecordKind(
    "terms",
    "the file's content digest, the site's language, the Markdown flavor",
    RAW,
    "kbtool.stages.pageworker",
    per_page=True,
)
CHECK = RecordKind(
    "check",
    "the settings, today's date, the file's content digest",
    PLAIN_LIST,
    "kbtool.stages.check",
    per_page=True,
)
FACTS = RecordKind("facts", "(none: compared by value)", RAW, "kbtool.stages.facts", per_page=True)
INFO = RecordKind(
    "info",
    "the file's content digest, the settings (and valid only while the page's check is)",
    PLAIN,
    "kbtool.stages.siteinfo",
    per_page=True,
)
LISTING = RecordKind(
    "listing",
    "as its page's info record's",
    PLAIN,
    "kbtool.stages.siteinfo",
    per_page=True,
)
STAT = RecordKind("stat", "the status the disk gave", RAW, "kbtool.stages.check", per_page=False)
RESULT = RecordKind(
    "result",
    "each cell's code, line and options, limits, inputs, Python's version",
    JSON,
    "kbtool.execute.runner",
    per_page=True,
)
OUTPUT = RecordKind(
    "output",
    "everything the output shows (its page, neighbours, links, results, settings)",
    FILES_OR_PLAIN,
    "kbtool.stages.render",
    per_page=False,
)
INDEXES = RecordKind(
    "indexes",
    "every page's path and site-facts digest, the settings",
    JSON,
    "kbtool.stages.index_plan",
    per_page=False,
)
PUBLISHED = RecordKind(
    "published", "the site folder", RAW, "kbtool.stages.publish.published", per_page=False
)
HISTORY_LOG = RecordKind(
    "history",
    "the repository, the folders logged, the fingerprint of git's HEAD",
    RAW,
    "kbtool.stages.history",
    per_page=False,
)
SPARE_SITE = RecordKind(
    "spare",
    "the site folder, its identity and the spare's",
    JSON,
    "kbtool.stages.publish.stored_spare",
    per_page=False,
)
LAYOUT = RecordKind(
    "layout", "the graph's pages and edges", JSON, "kbtool.render.graphpage", per_page=False
)
SIMILAR = RecordKind(
    "similar",
    "(none: holds a digest of each page's and tag's neighbours, compared node by node)",
    JSON,
    "kbtool.stages.similar",
    per_page=False,
)
UNCHANGED = RecordKind(
    "unchanged",
    "every file's digest, the settings, today's date, the site folder (none for the check's)",
    PLAIN,
    "kbtool.stages.site",
    per_page=False,
)

KINDS: tuple[RecordKind, ...] = (
    PAGE,
    BODY,
    SEARCH,
    TERMS,
    CHECK,
    FACTS,
    INFO,
    LISTING,
    STAT,
    RESULT,
    OUTPUT,
    INDEXES,
    PUBLISHED,
    HISTORY_LOG,
    SPARE_SITE,
    LAYOUT,
    SIMILAR,
    UNCHANGED,
)
PER_PAGE = tuple(kind for kind in KINDS if kind.per_page)
