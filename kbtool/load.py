"""Files -> pages: read every file once, take unchanged pages from the store, parse the rest.

A page is parsed once: the worker that parses it also renders its body (when a build asks
for bodies) from the same tokens, and sends back compact records (a pickled page, the body as
JSON), never tokens. Both are kept in the store under the file's content digest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from kbtool import __version__
from kbtool.cache import dump_page, load_page, source_digest
from kbtool.config import Config
from kbtool.discover import Found, Unreadable, discover
from kbtool.lifecycle import worker_pool
from kbtool.model import Page, PageKind, Problem
from kbtool.parse.digest import content_digest
from kbtool.store import Store, open_store
from kbtool.wiki import Wiki

if TYPE_CHECKING:
    from kbtool.render.markdown import PageBody
    from kbtool.search.text import SearchDoc

#: Below this many pages to parse, a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 64
PAGE, BODY, SEARCH = "page", "body", "search"

# Work handed to forked workers through memory they inherit, instead of pickling file bytes:
# the files to parse, and the language of the bodies to render (none: parse only).
_PENDING: list[tuple[str, bytes, str, str]] = []
_LANGUAGE: list[str] = []


def default_jobs(config: Config) -> int:
    return config.jobs or len(os.sched_getaffinity(0))


@dataclass(frozen=True)
class Snapshot:
    """Every file's bytes and content digest, read once; what all records are keyed by."""

    files: list[tuple[Found, bytes, str]]
    unreadable: list[Unreadable]

    def digest(self) -> str:
        """One hash of every path, kind and content digest, and every unreadable file."""
        text = repr(
            [(f.path, f.kind, digest) for f, _, digest in self.files]
            + [(u.path, u.problem) for u in self.unreadable]
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def scan(config: Config) -> Snapshot:
    found, unreadable = discover(config)
    files = []
    root = str(config.root)
    for item in found:
        data = _read(root, item, unreadable)
        if data is not None:
            files.append((item, data, content_digest(data)))
    return Snapshot(files, sorted(unreadable, key=lambda u: u.path))


def _hash(*parts: object) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()


def parser_key(config: Config) -> str:
    """What every parsed page depends on beyond its bytes (and its kind, checked on use):
    kbtool's parser, and no setting, so that a changed setting parses nothing again."""
    return _hash(__version__, source_digest("model.py", "parse/*.py"))


def renderer_key(config: Config) -> str:
    """What every rendered body (and search text) depends on beyond its bytes: the renderer,
    the search text's extraction and the language."""
    code = source_digest("render/markdown.py", "render/cells.py", "render/mathml.py")
    more = source_digest("render/highlight.py", "search/text.py")
    return _hash(parser_key(config), code, more, config.language)


#: Pages (and bodies) a long-running process keeps between loads: path -> (record key, value)
Memory = dict[str, tuple[str, tuple[Page, "PageBody | None"]]]


@dataclass
class Loaded:
    """Pages by path (sorted); the bodies known so far (parsed now, kept in memory, or fetched
    for rendering); the search texts of the pages parsed now."""

    pages: dict[str, Page]
    bodies: dict[str, PageBody] = field(default_factory=dict)
    #: the search text of the pages parsed now (others': :func:`fetch_search_docs`)
    docs: dict[str, SearchDoc] = field(default_factory=dict)


def load_pages(
    config: Config,
    snapshot: Snapshot,
    store: Store,
    jobs: int,
    use_cache: bool = True,
    with_bodies: bool = False,
    only: Iterable[str] | None = None,
    on_parsed: Callable[[int, int], None] | None = None,
    memory: Memory | None = None,
) -> Loaded:
    """The pages of ``snapshot`` (or of ``only`` among them): from ``memory`` or the store
    where the file's content is unchanged, else parsed (and rendered, ``with_bodies``) and
    stored."""
    wanted = set(only) if only is not None else None
    files = [f for f in snapshot.files if wanted is None or f[0].path in wanted]
    pkey, rkey = parser_key(config), renderer_key(config) if with_bodies else ""
    memory = {} if memory is None or not use_cache else memory
    remembered = _remembered(memory, files, pkey, rkey)
    names = [item.path for item, _, _ in files if item.path not in remembered]
    stored = store.some(PAGE, names) if use_cache else {}
    # Only whether a valid body is stored: it is read when its page is rendered (fetch_bodies).
    body_keys = store.keys(BODY) if use_cache and with_bodies else {}
    loaded = Loaded({})
    todo: list[tuple[str, bytes, str, str]] = []
    for item, data, digest in files:
        if item.path in remembered:
            loaded.pages[item.path], body = remembered[item.path]
            if body is not None:
                loaded.bodies[item.path] = body
            continue
        page = _stored_page(stored.get(item.path), f"{digest}.{pkey}", item.kind)
        if page is not None and (body_keys.get(item.path) == f"{digest}.{rkey}" or not with_bodies):
            loaded.pages[item.path] = page
        else:
            todo.append((item.path, data, item.kind, digest))
    results = _parse_all(todo, jobs, config.language if with_bodies else None, on_parsed)
    page_rows, body_rows, doc_rows = [], [], []
    for (path, _, _, digest), (page_bytes, body_bytes, doc_bytes) in zip(
        todo, results, strict=True
    ):
        page = load_page(page_bytes)
        assert page is not None  # just pickled by our own worker
        loaded.pages[path] = page
        page_rows.append((path, f"{digest}.{pkey}", page_bytes))
        if body_bytes is not None and doc_bytes is not None:
            loaded.bodies[path] = _decode_body(body_bytes)
            loaded.docs[path] = _decode_doc(doc_bytes)
            body_rows.append((path, f"{digest}.{rkey}", body_bytes))
            doc_rows.append((path, f"{digest}.{rkey}", doc_bytes))
    if page_rows:
        with store.transaction():
            store.put(PAGE, page_rows)
            store.put(BODY, body_rows)
            store.put(SEARCH, doc_rows)
    loaded.pages = {path: loaded.pages[path] for path in sorted(loaded.pages)}
    if only is None:  # forget pages that are gone
        for path in set(memory) - set(loaded.pages):
            del memory[path]
    for path, page in loaded.pages.items():
        memory[path] = (f"{page.digest}.{pkey}.{rkey}", (page, loaded.bodies.get(path)))
    return loaded


def _remembered(
    memory: Memory,
    files: list[tuple[Found, bytes, str]],
    pkey: str,
    rkey: str,
) -> dict[str, tuple[Page, PageBody | None]]:
    """The pages (and bodies) in ``memory`` that are still valid for ``files``."""
    found: dict[str, tuple[Page, PageBody | None]] = {}
    for item, _, digest in files:
        kept = memory.get(item.path)
        if kept is None or kept[0] != f"{digest}.{pkey}.{rkey}":
            continue
        page, body = kept[1]
        if page.kind == item.kind:
            found[item.path] = (page, body)
    return found


def load_wiki(
    config: Config,
    jobs: int | None = None,
    use_cache: bool = True,
    snapshot: Snapshot | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Wiki:
    """The whole wiki, every page parsed or taken from the store.
    ``progress(parsed, to parse)`` is told as pages are parsed (for a progress bar)."""
    snapshot = snapshot or scan(config)
    jobs = jobs or default_jobs(config)
    with open_store(config.cache_path) as store:
        loaded = load_pages(config, snapshot, store, jobs, use_cache, on_parsed=counting(progress))
    return Wiki(config, loaded.pages, list(snapshot.unreadable))


def counting(progress: Callable[[int, int], None] | None) -> Callable[[int, int], None] | None:
    """``on_parsed(n, total)`` for ``load_pages`` that tells ``progress(done, total)``."""
    if progress is None:
        return None
    done = 0

    def advance(count: int, total: int) -> None:
        nonlocal done
        done += count
        progress(done, total)

    return advance


def _stored_page(record: tuple[str, bytes] | None, key: str, kind: PageKind) -> Page | None:
    if record is None or record[0] != key:
        return None
    page = load_page(record[1])
    return page if page is not None and page.kind == kind else None


def fetch_bodies(
    config: Config,
    snapshot: Snapshot,
    store: Store,
    loaded: Loaded,
    paths: Iterable[str],
    memory: Memory | None = None,
) -> None:
    """Add to ``loaded.bodies`` the stored bodies of ``paths`` (the pages about to be
    rendered)."""
    wanted = [p for p in paths if p not in loaded.bodies]
    for path, body in _records(config, snapshot, store, BODY, wanted, _decode_body).items():
        loaded.bodies[path] = body
        if memory is not None and path in memory:
            key, (page, _) = memory[path]
            memory[path] = (key, (page, body))


def fetch_search_docs(
    config: Config, snapshot: Snapshot, store: Store, loaded: Loaded, paths: Iterable[str]
) -> dict[str, SearchDoc]:
    """The search text of ``paths``: taken when they were parsed now, else stored."""
    wanted = list(paths)
    found = {p: loaded.docs[p] for p in wanted if p in loaded.docs}
    rest = [p for p in wanted if p not in found]
    found.update(_records(config, snapshot, store, SEARCH, rest, _decode_doc))
    return found


T = TypeVar("T")


def _records(
    config: Config,
    snapshot: Snapshot,
    store: Store,
    kind: str,
    paths: list[str],
    decode: Callable[[bytes], T],
) -> dict[str, T]:
    """The stored body or search text (``kind``) of each of ``paths``, decoded; one that is
    missing, stale or cannot be read is made again from its file."""
    rkey = renderer_key(config)
    files = {item.path: (item, data, digest) for item, data, digest in snapshot.files}
    stored = store.some(kind, paths)
    found: dict[str, T] = {}
    for path in paths:
        item, data, digest = files[path]
        record = stored.get(path)
        if record is not None and record[0] == f"{digest}.{rkey}":
            with contextlib.suppress(ValueError, KeyError, TypeError, IndexError):
                found[path] = decode(record[1])  # else damaged or foreign: made again
        if path not in found:
            _, body, doc = _process(path, data, item.kind, digest, config.language)
            found[path] = decode((body if kind == BODY else doc) or b"")
    return found


def _decode_body(data: bytes) -> PageBody:
    from kbtool.render.markdown import PageBody

    return PageBody.from_json(json.loads(data))


def _decode_doc(data: bytes) -> SearchDoc:
    from kbtool.search.text import SearchDoc

    return SearchDoc.from_json(json.loads(data))


def _read(root: str, item: Found, unreadable: list[Unreadable]) -> bytes | None:
    try:
        with open(os.path.join(root, item.path), "rb") as f:  # plain strings: 7,000 files
            return f.read()
    except OSError as error:
        unreadable.append(Unreadable(item.path, Problem("KB004", f"cannot read: {error.strerror}")))
        return None


Processed = tuple[bytes, bytes | None, bytes | None]


def _process(path: str, data: bytes, kind: str, digest: str, language: str | None) -> Processed:
    """Parse one file and, for a build (a ``language`` for the body's UI strings), take its
    search text and render its body from the same tokens: (page, body, search text) as
    compact records."""
    from kbtool.parse.page import parse_page_tokens

    page, tokens = parse_page_tokens(path, data, kind, digest)  # type: ignore[arg-type]
    if language is None:
        return dump_page(page), None, None
    from kbtool.render.i18n import translator
    from kbtool.render.markdown import render_body
    from kbtool.search.text import search_doc

    try:
        doc = search_doc(page, tokens)  # before rendering, which changes the tokens
        rendered = render_body(page, tokens, translator(language))
    except Exception as error:  # a renderer bug on one page fails that page alone
        doc, rendered = _unrendered(page, error)
    return (
        dump_page(page),
        json.dumps(rendered.to_json(), ensure_ascii=False).encode("utf-8"),
        json.dumps(doc.to_json(), ensure_ascii=False).encode("utf-8"),
    )


def _unrendered(page: Page, error: Exception) -> tuple[SearchDoc, PageBody]:
    """An empty body carrying a KB502 error, and no search text, for a page that broke the
    renderer."""
    from kbtool.diagnostics import Diagnostic
    from kbtool.render.markdown import PageBody
    from kbtool.render.urls import page_output
    from kbtool.search.text import SearchDoc

    message = f"page cannot be rendered ({type(error).__name__}: {error}); please report it"
    body = PageBody("", (), None, (Diagnostic(page.path, 1, 1, "KB502", "error", message),), False)
    empty = SearchDoc(page.path, page_output(page.path), page.title, "", "", (), (), "")
    return empty, body


def _process_chunk(indices: range) -> list[Processed]:
    language = _LANGUAGE[0] if _LANGUAGE else None
    return [_process(*_PENDING[i], language) for i in indices]


def _parse_all(
    todo: list[tuple[str, bytes, str, str]],
    jobs: int,
    language: str | None,
    on_parsed: Callable[[int, int], None] | None,
) -> list[Processed]:
    """Parse in this process, or in forked workers when there is enough to share."""
    global _PENDING
    if not todo:
        return []
    _LANGUAGE[:] = [language] if language else []
    _PENDING = todo
    try:
        if (
            jobs <= 1
            or len(todo) < _PARALLEL_THRESHOLD
            or "fork" not in multiprocessing.get_all_start_methods()
        ):
            results = []
            for item in todo:
                results.append(_process(*item, language))
                if on_parsed:
                    on_parsed(1, len(todo))
            return results
        size = max(8, min(64, len(todo) // (jobs * 8)))
        chunks = [range(i, min(i + size, len(todo))) for i in range(0, len(todo), size)]
        out: list[Processed] = []
        with worker_pool(jobs) as pool:
            for chunk_results in pool.map(_process_chunk, chunks):
                out += chunk_results
                if on_parsed:
                    on_parsed(len(chunk_results), len(todo))
        return out
    finally:
        _PENDING = []
        _LANGUAGE.clear()
