"""Where a check starts from: every page's record key, facts, stand-in and stored diagnostics,
and which pages must be checked again.

Made from the store, that is a pass over every page's record keys (or the values a session
holds of them) at every save or keystroke; a page's stored facts are decoded, and its stand-in
made, only when the check asks for that page (after an edit, the pages the edited ones link
to), or when a build asks for every page's. A session holds the whole of it from its check
before (:class:`CheckState`) and patches it for the pages whose file changed: copying a
dictionary is done in C. The state holds while the same pages are there, the settings and
date are the same and no other process wrote to the store (its key: the generation of the
store's known keys); else the start is made from the store, as a one-shot check makes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TypeVar, cast

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.page_facts import Basics
from kbtool.reuse.lazy import Lazy
from kbtool.reuse.since import edited_since
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.check_state import CheckState
from kbtool.stages.facts import Facts, decode_facts, facts_intact
from kbtool.stages.reused import CHECK_KEYS, CHECK_STATE, PAGE_FACTS, STAND_INS
from kbtool.stages.run import Run
from kbtool.store.db import Store
from kbtool.store.records import CHECK, FACTS

T = TypeVar("T")


@dataclass(frozen=True)
class Start:
    """What a check starts from: every page's check record key now, the pages to check
    because their record is not valid, the pages gone, and every page's stored facts."""

    keys: dict[str, str]
    changed: set[str]
    removed: set[str]
    facts: Mapping[str, Facts | None]
    #: the state of the check before, patched (None: every page's values made again)
    held: CheckState | None = None
    #: the store's check record keys (read only when not patched)
    stored_keys: dict[str, str] = field(default_factory=dict)
    #: the pages whose stored facts are damaged (checked again, unless gone)
    damaged: frozenset[str] = frozenset()


def start_from_held(run: Run, settings: str, generation: int | None) -> Start | None:
    """The start patched from the session's check before, for the pages whose file changed
    since; None if that state is not held or no longer holds."""
    if generation is None:
        return None
    held = run.reuse.get(CHECK_STATE, WHOLE, (settings, generation))
    digests = run.snapshot.digests()
    edited = edited_since(held.digests, digests) if held is not None else None
    if held is None or edited is None:
        return None
    held = held.whole()  # made so when the session settled, unless none did since
    keys = {**held.keys, **{path: CHECK.key(settings, digests[path]) for path in edited}}
    stored = run.store.keys_of(CHECK, edited)
    facts_key = FACTS.key()
    with_facts = {p for p, key in run.store.keys_of(FACTS, edited).items() if key == facts_key}
    changed = {p for p in edited if stored.get(p) != keys[p] or p not in with_facts}
    if changed != edited:  # a record not the one the state says (never expected): afresh
        return None
    return Start(keys, changed, set(), held.facts, held)


def settle(reuse: Reuse) -> None:
    """Make the check state ``reuse`` holds whole, in a session's idle time (see
    :mod:`kbtool.stages.check_state`)."""
    held = reuse.held(CHECK_STATE).get(WHOLE)
    if held is not None:
        key, state = held
        reuse.put(CHECK_STATE, WHOLE, key, state.whole())


def start_from_store(run: Run, settings: str) -> Start:
    """The start made of every page's key and the store's records."""
    digests = run.snapshot.digests()
    with_facts = _with_facts(run.store) if run.use_store else set()
    old_keys = run.store.keys(CHECK) if run.use_store else {}
    keys_now = _check_keys(run, settings, digests)
    changed = {
        path
        for path, key in keys_now.items()
        if old_keys.get(path) != key or path not in with_facts
    }
    removed = (with_facts | set(old_keys)) - set(digests)
    # Every page's facts: the stand-ins of the pages not checked again are made of them.
    old_facts = _stored_facts(run, with_facts, old_keys)
    damaged = frozenset(p for p, facts in old_facts.at_hand().items() if facts is None)
    changed |= damaged & set(digests)
    return Start(keys_now, changed, removed, old_facts, stored_keys=old_keys, damaged=damaged)


@dataclass(frozen=True)
class WikiPages:
    """What the wiki is made of: its pages (stand-ins but for those checked now), every
    page's facts, the sources' ingestion dates and every page's basics."""

    pages: Mapping[str, Page]
    facts: Mapping[str, Facts]
    ingested: Mapping[str, date]
    basics: Mapping[str, Basics]


def wiki_pages(
    run: Run, start: Start, fresh: dict[str, Page], stale: set[str], new: dict[str, Facts]
) -> WikiPages:
    """The wiki's pages and facts: patched from the check before for the pages checked
    then or now, else made of every page's stored facts, each when first asked for."""
    digests, held = run.snapshot.digests(), start.held
    if held is None:  # a start made from the store, whose facts are read when asked for
        assert isinstance(start.facts, Lazy)
        every = _every_facts(start.facts, new, digests, start.damaged)
        dates, basics_of = FieldOfFacts(every, _ingested), FieldOfFacts(every, _basics)
        return WikiPages(_stand_ins(run, every, fresh), every, dates, basics_of)
    facts = {**held.facts, **new}
    # The pages checked before and not now are stand-ins again, as a check from the store
    # would have them.
    again = {p: run.reuse.made(STAND_INS, p, facts[p], _stand_in) for p in held.real - stale}
    ingested = dict(held.ingested)
    for path, f in new.items():
        if f.ingested:
            ingested[path] = date.fromisoformat(f.ingested)
        else:
            ingested.pop(path, None)
    basics = {**held.basics, **{path: f.basics for path, f in new.items()}}
    return WikiPages({**held.pages, **again, **fresh}, facts, ingested, basics)


class FieldOfFacts(Mapping[str, T]):
    """What ``field`` gives of each page's facts (a page it gives None of is not here), read
    when asked for: the wiki asks few pages' dates and basics after an edit."""

    def __init__(self, facts: Mapping[str, Facts], field: Callable[[Facts], T | None]) -> None:
        self._facts, self._field = facts, field

    def __getitem__(self, path: str) -> T:
        value = self._field(self._facts[path])
        if value is None:
            raise KeyError(path)
        return value

    def __iter__(self) -> Iterator[str]:
        return (path for path, facts in self._facts.items() if self._field(facts) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def _ingested(facts: Facts) -> date | None:
    return date.fromisoformat(facts.ingested) if facts.ingested else None


def _basics(facts: Facts) -> Basics:
    return facts.basics


def _every_facts(
    stored: Lazy[Facts | None, bytes],
    new: dict[str, Facts],
    digests: Mapping[str, str],
    damaged: frozenset[str],
) -> Lazy[Facts, str]:
    """Every page's facts: the new ones, else the stored ones but the ``damaged`` (whose
    page is new, unless it could not be read)."""
    every = {**dict.fromkeys(stored), **new}
    order = [path for path in every if path in digests and (path in new or path not in damaged)]
    rest = {path: path for path in order if path not in new}
    return Lazy(lambda batch: cast("dict[str, Facts]", stored.load(batch)), new, rest, order)


def _stand_in(path: str, facts: Facts) -> Page:
    return facts.stand_in(path)


def in_order(
    digests: Mapping[str, str],
    stored: Mapping[str, list[Diagnostic]],
    own: Mapping[str, list[Diagnostic]],
) -> dict[str, list[Diagnostic]]:
    """Every page's own diagnostics, in the snapshot's order: checked now, else stored."""
    return {path: own[path] if path in own else stored.get(path, []) for path in digests}


def _check_keys(run: Run, settings: str, digests: dict[str, str]) -> dict[str, str]:
    """Each page's check record key now (reused while the settings and file digest it was
    made of are the same)."""
    made_of = ((path, (settings, digest)) for path, digest in digests.items())
    return run.reuse.made_all(CHECK_KEYS, made_of, lambda _, made: CHECK.key(*made))


def _stand_ins(run: Run, facts: Lazy[Facts, str], fresh: dict[str, Page]) -> Lazy[Page, str]:
    """A stand-in for each page not checked now, made when first asked for and reused while
    its facts are the same; the pages checked now as they are; by path."""

    def make(batch: dict[str, str]) -> dict[str, Page]:
        return run.reuse.made_all(STAND_INS, facts.load(batch).items(), _stand_in)

    rest = {path: path for path in facts if path not in fresh}
    return Lazy(make, fresh, rest, sorted(facts))


def _with_facts(store: Store) -> set[str]:
    """The pages whose stored facts this code made."""
    key = FACTS.key()
    return {path for path, stored in store.keys(FACTS).items() if stored == key}


def _stored_facts(
    run: Run, paths: set[str], check_keys: dict[str, str]
) -> Lazy[Facts | None, bytes]:
    """The stored facts of ``paths``, each decoded when first asked for (None: a damaged
    record): reused while the page's check record is the one they were stored with."""
    found: dict[str, Facts | None] = {
        path: facts
        for path, (key, facts) in run.reuse.held(PAGE_FACTS).items()
        if path in paths and check_keys.get(path) == key
    }
    rest = [path for path in paths if path not in found]
    records = run.store.some_of(FACTS, rest, len(paths))  # all of them in a new process
    encoded = {path: records[path][1] for path in rest if path in records}
    found.update((path, None) for path, data in encoded.items() if not facts_intact(data))

    def decode(batch: dict[str, bytes]) -> dict[str, Facts | None]:
        decoded = {path: decode_facts(data) for path, data in batch.items()}
        for path, facts in decoded.items():
            if facts is not None and path in check_keys:
                run.reuse.put(PAGE_FACTS, path, check_keys[path], facts)
        return decoded

    return Lazy(decode, found, {p: data for p, data in encoded.items() if p not in found})
