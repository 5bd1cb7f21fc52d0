"""Where a check starts from: every page's record key, facts, stand-in and stored diagnostics,
and which pages must be checked again.

Made from the store, that is a pass over every page's records (or the values a session holds
of them) at every save or keystroke. A session holds the whole of it from its check before
(:class:`CheckState`) and patches it for the pages whose file changed: copying a dictionary
is done in C. The state holds while the same pages are there, the settings and date are the
same and no other process wrote to the store (its key: the generation of the store's known
keys); else the start is made from the store, as a one-shot check makes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.page_facts import Basics
from kbtool.reuse.since import edited_since
from kbtool.reuse.values import WHOLE
from kbtool.stages.check_state import CheckState
from kbtool.stages.facts import Facts, decode_facts
from kbtool.stages.reused import CHECK_KEYS, CHECK_STATE, PAGE_FACTS, STAND_INS
from kbtool.stages.run import Run
from kbtool.store.db import Store
from kbtool.store.records import CHECK, FACTS


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
    keys = {**held.keys, **{path: CHECK.key(settings, digests[path]) for path in edited}}
    stored = run.store.keys_of(CHECK, edited)
    facts_key = FACTS.key()
    with_facts = {p for p, key in run.store.keys_of(FACTS, edited).items() if key == facts_key}
    changed = {p for p in edited if stored.get(p) != keys[p] or p not in with_facts}
    if changed != edited:  # a record not the one the state says (never expected): afresh
        return None
    return Start(keys, changed, set(), held.facts, held)


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
    changed |= {p for p, facts in old_facts.items() if facts is None and p in digests}
    return Start(keys_now, changed, removed, old_facts, stored_keys=old_keys)


@dataclass(frozen=True)
class WikiPages:
    """What the wiki is made of: its pages (stand-ins but for those checked now), every
    page's facts, the sources' ingestion dates and every page's basics."""

    pages: dict[str, Page]
    facts: dict[str, Facts]
    ingested: dict[str, date]
    basics: dict[str, Basics]


def wiki_pages(
    run: Run, start: Start, fresh: dict[str, Page], stale: set[str], new: dict[str, Facts]
) -> WikiPages:
    """The wiki's pages and facts: patched from the check before for the pages checked
    then or now, else made of every page's stored facts."""
    digests, held = run.snapshot.digests(), start.held
    if held is None:
        everyone = _stand_ins(run, start.facts, digests)
        everyone.update(fresh)
        facts = {p: f for p, f in {**start.facts, **new}.items() if f and p in digests}
        ingested = {p: date.fromisoformat(f.ingested) for p, f in facts.items() if f.ingested}
        basics = {p: f.basics for p, f in facts.items()}
        return WikiPages({p: everyone[p] for p in sorted(everyone)}, facts, ingested, basics)
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


def _stand_ins(
    run: Run, facts: Mapping[str, Facts | None], digests: dict[str, str]
) -> dict[str, Page]:
    """A stand-in for each page with facts, reused while its facts are the same."""
    made_of = ((path, f) for path, f in facts.items() if f is not None and path in digests)
    return run.reuse.made_all(STAND_INS, made_of, lambda path, f: f.stand_in(path))


def _with_facts(store: Store) -> set[str]:
    """The pages whose stored facts this code made."""
    key = FACTS.key()
    return {path for path, stored in store.keys(FACTS).items() if stored == key}


def _stored_facts(run: Run, paths: set[str], check_keys: dict[str, str]) -> dict[str, Facts | None]:
    """The stored facts of ``paths``: reused while the page's check record is the one they
    were stored with, else read."""
    found: dict[str, Facts | None] = {
        path: facts
        for path, (key, facts) in run.reuse.held(PAGE_FACTS).items()
        if path in paths and check_keys.get(path) == key
    }
    rest = [path for path in paths if path not in found]
    records = run.store.some_of(FACTS, rest, len(paths))  # all of them in a new process
    for path in rest:
        if (record := records.get(path)) is None:
            continue
        found[path] = facts = decode_facts(record[1])
        if facts is not None and path in check_keys:
            run.reuse.put(PAGE_FACTS, path, check_keys[path], facts)
    return found
