"""Stage 2, load: the snapshot's pages, reused, from the store, or parsed.

A page whose file is unchanged is reused (:attr:`Run.reuse`) or read from its record; the
others go to the page worker (in the run's workers when there are enough), and what it sends
back is stored under the file's content digest. A body and a search text are read from the
store only when a later stage asks for them (:func:`fetch_bodies`, :func:`fetch_search_docs`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, TypeVar

from kbtool import collector
from kbtool.config import Config
from kbtool.discover import Found
from kbtool.model import Page
from kbtool.reuse.lazy import Lazy, decoding
from kbtool.reuse.values import Reuse
from kbtool.stages.pageworker import (
    Processed,
    Work,
    decode_body,
    decode_doc,
    process,
    process_chunk,
)
from kbtool.stages.reused import PAGES, STORED
from kbtool.stages.run import OnProgress, Run, new_run
from kbtool.stages.scan import Snapshot, scanning_again
from kbtool.stages.stored_pages import Stored, StoredPages, stored_pages
from kbtool.stages.workers import chunked
from kbtool.store.codec import load_page
from kbtool.store.db import open_store
from kbtool.store.records import BODY, PAGE, SEARCH, TERMS, RecordKind
from kbtool.wiki import Wiki

if TYPE_CHECKING:
    from kbtool.render.markdown import PageBody
    from kbtool.search.text import SearchDoc

#: Below this many pages to parse, forking workers costs more than it saves.
_PARALLEL_THRESHOLD = 64
#: Term records stored, and read by the search stage, at once.
_RECORDS_AT_ONCE = 256


@dataclass(frozen=True)
class Loaded:
    """Pages by path (sorted); the bodies known now (parsed now or reused); the search texts of
    the pages parsed now, both decoded when first asked for. The rest is read from the store
    when a stage asks."""

    pages: StoredPages
    bodies: Lazy[PageBody, bytes] = field(default_factory=lambda: decoding(decode_body))
    docs: Lazy[SearchDoc, bytes] = field(default_factory=lambda: decoding(decode_doc))


def load_pages(
    run: Run,
    *,
    with_bodies: bool = False,
    only: Iterable[str] | None = None,
    on_parsed: OnProgress | None = None,
) -> Loaded:
    """The pages of the snapshot (or of ``only`` among them); ``with_bodies``: their bodies
    too, for a build, and their search texts when the site has a search index."""
    wanted = set(only) if only is not None else None
    files = [f for f in run.snapshot.files if wanted is None or f[0].path in wanted]
    language = run.config.language if with_bodies else None
    flavor = run.config.flavor  # the Markdown read: a page parsed as another is not valid
    key_of = _keys(language, flavor)
    # Search texts are taken only for a site with a search index: one turned on since is
    # parsed again (in the workers) for the texts it lacks.
    search = with_bodies and run.config.search
    remembered = _still_valid(run.reuse, files, key_of) if run.use_store else {}
    # What the load before found stored, while the store is as this session left it: most
    # pages of a session are never decoded, and asking their three keys again at every
    # save was the stage's largest cost. Only a load of every page: it forgets the pages
    # gone before their records are (the check's), so a page re-created is asked again.
    generation = run.generation() if run.use_store and only is None else None
    known_stored: dict[str, bool] = {}
    if generation is not None:
        asked = (
            (f.path, (key_of(d, f.kind), search, generation))
            for f, d in files
            if f.path not in remembered
        )
        known_stored = run.reuse.got(STORED, asked)
    # Only whether a valid page (and body) is stored: a page is read when a stage asks for
    # it, a body when its page is rendered.
    unknown = [f.path for f, _ in files if f.path not in remembered and f.path not in known_stored]
    # Against every file of the snapshot: a check after an edit loads one page of 7,000.
    among = len(run.snapshot.files)
    page_keys = _record_keys(run, PAGE, unknown, among)
    body_keys = _record_keys(run, BODY, unknown, among) if with_bodies else {}
    doc_keys = _record_keys(run, SEARCH, unknown, among) if search else {}
    pages: dict[str, Page] = {}
    bodies: dict[str, PageBody] = {}
    encoded_bodies: dict[str, bytes] = {}
    encoded_docs: dict[str, bytes] = {}
    stored: dict[str, Stored] = {}
    todo: list[Work] = []
    for item, digest in files:
        if item.path in remembered:
            pages[item.path], body = remembered[item.path]
            if body is not None:
                bodies[item.path] = body
            continue
        if item.path in known_stored:
            stored[item.path] = (item.kind, digest)
            continue
        has_page = page_keys.get(item.path) == PAGE.key(digest, flavor)
        has_body = body_keys.get(item.path) == BODY.key(digest, language or "", flavor)
        has_doc = not search or doc_keys.get(item.path) == SEARCH.key(
            digest, language or "", flavor
        )
        if has_page and (not with_bodies or has_body and has_doc):
            stored[item.path] = (item.kind, digest)
            if generation is not None:
                key = (key_of(digest, item.kind), search, generation)
                run.reuse.put(STORED, item.path, key, True)
        else:  # its bytes are read now (a file the scan trusted by its stat, from the disk)
            todo.append((item.path, run.snapshot.data(item.path), item.kind, digest))
    page_rows, body_rows, doc_rows, term_rows = [], [], [], []
    parsed = _parse_all(run, todo, language, search, on_parsed)
    # Not for a few pages: a long-running process (the language server) loads a page at each
    # keystroke, and what it made since the last load would never be collected.
    many = len(todo) >= _PARALLEL_THRESHOLD
    with collector.holding() if many else contextlib.nullcontext():
        for (path, _, _, digest), (page_bytes, body_bytes, doc_bytes, terms) in zip(
            todo, parsed, strict=True
        ):
            page = load_page(page_bytes)
            assert page is not None  # just pickled by our own worker
            pages[path] = page
            page_rows.append((path, PAGE.key(digest, flavor), page_bytes))
            if body_bytes is not None:
                encoded_bodies[path] = body_bytes
                body_rows.append((path, BODY.key(digest, language or "", flavor), body_bytes))
            if doc_bytes is not None:
                encoded_docs[path] = doc_bytes
                doc_rows.append((path, SEARCH.key(digest, language or "", flavor), doc_bytes))
            if terms is not None:  # what the search index merges
                term_rows.append((path, TERMS.key(digest, language or "", flavor), terms))
            if len(term_rows) >= _RECORDS_AT_ONCE:  # stored as they come: nobody holds them
                with run.store.transaction():
                    run.store.put(TERMS, term_rows)
                term_rows = []
    if page_rows or term_rows:
        with run.store.transaction():
            run.store.put(PAGE, page_rows)
            run.store.put(BODY, body_rows)
            run.store.put(SEARCH, doc_rows)
            run.store.put(TERMS, term_rows)
    if only is None:  # the pages that are gone, when some are (told in C: keys views)
        paths = run.snapshot.digests().keys()
        if not run.reuse.held(PAGES).keys() <= paths:
            run.reuse.keep_only(PAGES, paths)
        if not run.reuse.held(STORED).keys() <= paths:
            run.reuse.keep_only(STORED, paths)
    for path, _, _, _ in todo:  # a body parsed now is decoded when rendered; the others held
        page = pages[path]
        run.reuse.put(PAGES, path, key_of(page.digest, page.kind), (page, None))

    def keep(page: Page) -> None:  # what a stage read is reused by the next build
        run.reuse.put(PAGES, page.path, key_of(page.digest, page.kind), (page, None))

    return Loaded(
        stored_pages(pages, stored, run.store, run.snapshot, keep, flavor),
        decoding(decode_body, bodies, encoded_bodies),
        decoding(decode_doc, {}, encoded_docs),
    )


def _record_keys(run: Run, kind: RecordKind, names: list[str], among: int) -> dict[str, str]:
    """The stored keys of ``names``' records of ``kind``: asked for by name when they are
    few of the ``among`` records there are (serve keeps the rest), else all at once."""
    if not run.use_store or not names:
        return {}
    return run.store.keys_of(kind, names) if len(names) * 4 < among else run.store.keys(kind)


def _keys(language: str | None, flavor: str) -> Callable[[str, str], str]:
    """The key under which a page (and its body, for a build) is reused: its content digest,
    the Markdown flavor and its kind (which its folder gives)."""
    page = PAGE.key("", flavor)
    suffix = f"{page}.{BODY.key('', language, flavor)}" if language else page
    by_kind = {kind: f"{suffix}/{kind}" for kind in ("wiki", "source")}
    return lambda digest, kind: digest + by_kind[kind]


def _still_valid(
    reuse: Reuse, files: list[tuple[Found, str]], key_of: Callable[[str, str], str]
) -> dict[str, tuple[Page, PageBody | None]]:
    """The pages (and bodies) reused that are still valid for ``files``."""
    return reuse.got(PAGES, ((item.path, key_of(digest, item.kind)) for item, digest in files))


def _parse_all(
    run: Run, todo: list[Work], language: str | None, search: bool, on_parsed: OnProgress | None
) -> Iterator[Processed]:
    """Parse in this process, or in the run's workers when there is enough to share; each
    result as soon as its chunk is done, so that the caller takes it while the rest parse."""
    if not run.workers.worth_forking(len(todo), _PARALLEL_THRESHOLD):
        for work in todo:
            yield process(work, language, search, run.config.flavor)
            if on_parsed:
                on_parsed(1, len(todo))
        return
    chunks = chunked(len(todo), run.workers.jobs, smallest=8)
    shared = (todo, language, search, run.config.flavor)
    for chunk_results in run.workers.map(process_chunk, shared, chunks):
        yield from chunk_results
        if on_parsed:
            on_parsed(len(chunk_results), len(todo))


def load_wiki(
    config: Config,
    jobs: int | None = None,
    use_store: bool = True,
    snapshot: Snapshot | None = None,
    progress: OnProgress | None = None,
) -> Wiki:
    """The whole wiki, every page parsed or taken from the store (for the commands that
    need only pages: graph, fix, test). ``progress(parsed, to parse)`` is told as pages are
    parsed."""

    def load(files: Snapshot | None) -> Wiki:
        with open_store(config.cache_path) as store:
            run = new_run(config, store, snapshot=files, jobs=jobs, use_store=use_store)
            pages = dict(load_pages(run, on_parsed=counting(progress)).pages.items())
        return Wiki(config, pages, list(run.snapshot.unreadable))

    return scanning_again(config, snapshot, load)


def counting(progress: OnProgress | None) -> OnProgress | None:
    """``on_parsed(n, total)`` for :func:`load_pages` that tells ``progress(done, total)``."""
    if progress is None:
        return None
    done = 0

    def advance(count: int, total: int) -> None:
        nonlocal done
        done += count
        progress(done, total)

    return advance


def fetch_bodies(run: Run, loaded: Loaded, paths: list[str]) -> Lazy[PageBody, bytes]:
    """The bodies of ``paths`` (the pages about to be rendered): known, reused or stored; the
    ones parsed now are decoded by whoever renders them."""
    found = loaded.bodies.subset(paths)
    wanted = [p for p in paths if p not in found]
    stored = _records(run, BODY, wanted, decode_body)
    found.update(stored)
    for path in wanted:  # reused by the next build
        run.reuse.update(PAGES, path, partial(_with_body, stored[path]))
    return found


def _with_body(body: PageBody, held: tuple[Page, PageBody | None]) -> tuple[Page, PageBody]:
    return held[0], body


def fetch_search_docs(run: Run, loaded: Loaded, paths: Iterable[str]) -> dict[str, SearchDoc]:
    """The search texts of ``paths``: taken when they were parsed now, else stored."""
    wanted = list(paths)
    found = {p: loaded.docs[p] for p in wanted if p in loaded.docs}
    rest = [p for p in wanted if p not in found]
    found.update(_records(run, SEARCH, rest, decode_doc))
    return found


def fetch_term_records(run: Run, paths: list[str]) -> Iterator[bytes]:
    """The term records of ``paths``, in that order: stored by the load stage (this run's
    or an earlier one's), else made again from the file. Read a few hundred at a time, so
    that the caller holds what it made of them, not every record too."""
    files = _files(run)
    for start in range(0, len(paths), _RECORDS_AT_ONCE):
        batch = paths[start : start + _RECORDS_AT_ONCE]
        found = _records(run, TERMS, batch, bytes, files)
        yield from (found[path] for path in batch)


T = TypeVar("T")


def _files(run: Run) -> Mapping[str, tuple[Found, str]]:
    return run.snapshot.by_path()


def _records(
    run: Run,
    kind: RecordKind,
    paths: list[str],
    decode: Callable[[bytes], T],
    files: Mapping[str, tuple[Found, str]] | None = None,
) -> dict[str, T]:
    """The stored body, search text or terms (``kind``) of each of ``paths``, decoded; one
    that is missing, stale or cannot be read is made again from its file. ``files``: the
    snapshot's files by path, when the caller asks for several batches."""
    language = run.config.language
    files = files if files is not None else _files(run)
    stored = run.store.some(kind, paths)
    found: dict[str, T] = {}
    for path in paths:
        item, digest = files[path]
        record = stored.get(path)
        if record is not None and record[0] == kind.key(digest, language, run.config.flavor):
            with contextlib.suppress(ValueError, KeyError, TypeError, IndexError):
                found[path] = decode(record[1])  # else damaged or foreign: made again
        if path not in found:
            work = (path, run.snapshot.data(path), item.kind, digest)
            made = process(work, language, kind is not BODY, run.config.flavor)
            value = made.body if kind is BODY else made.doc if kind is SEARCH else made.terms
            found[path] = decode(value or b"")
    return found
