"""Stage 3, check: the whole wiki checked, reusing each page's stored results while nothing
they depend on changed.

What a page's diagnostics (and its part of the link graph) depend on is its own content, the
settings, kbtool's checker, today's date, and some *facts* of other pages: whether a path is a
page, of which kind, with which heading slugs; which pages have a stem or a title (wikilinks);
which file names in a folder begin alike and which stems exist at all ("did you mean"); what
the disk says of a non-page file. Each page's record lists the facts it read (the store's
``deps``). After an edit, the facts of the edited pages are compared with the stored ones, and
only the pages that read a changed fact are checked again, against stand-ins for the rest
(their stored facts). The graph rules then run on the whole link table, as a cold check runs
them, so the result is the same as a cold check's. Where the check starts from, made from the
store or patched from a session's check before, is :mod:`kbtool.stages.check_start`'s.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from typing import Any

from kbtool.checks import GRAPH_CHECKS, GRAPH_RULES, LINK_GRAPH, Enabled, unreadable_diagnostics
from kbtool.checks.graph import PageLinks
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic, enabled_codes
from kbtool.engine import WHOLE
from kbtool.engine.persist import load, save
from kbtool.link_status import stat_target
from kbtool.model import Page
from kbtool.rule_loader import ProjectRules, project_rules
from kbtool.stages.check_start import (
    in_order,
    start_from_held,
    start_from_store,
    wiki_pages,
)
from kbtool.stages.check_state import CheckState
from kbtool.stages.facts import Facts, encode_facts
from kbtool.stages.load import counting, load_pages
from kbtool.stages.page_checks import check_pages
from kbtool.stages.reused import (
    CHECK_STATE,
    CHECK_WIKI,
    DIAGNOSTICS,
    PAGE_FACTS,
)
from kbtool.stages.run import OnProgress, Run
from kbtool.stages.site_marks import site_marks
from kbtool.stages.upkeep import upkeep_diagnostics
from kbtool.stages.watched import Watched
from kbtool.store.db import Store, memory_store
from kbtool.store.records import CHECK, FACTS, STAT
from kbtool.wiki import ShownLink, Wiki


@dataclass
class CheckRun:
    """Every diagnostic at its default severity (filter them to report), and how many pages
    were checked again rather than taken from the store."""

    diagnostics: list[Diagnostic]
    wiki: Wiki
    rechecked: int
    #: the run's store holds this check's link table (not so when it could not be written)
    links_stored: bool = True
    #: every page's facts, by path
    facts: Mapping[str, Facts] = field(default_factory=dict)
    #: the links of the pages checked now, as the site shows them
    shown: dict[str, tuple[ShownLink, ...]] = field(default_factory=dict)


def _settings_key(config: Config, today: date, rules: ProjectRules) -> str:
    """What every page's check depends on beyond its file: the settings, the date and the
    project's rules (their files, the project modules they import, the entry points)."""
    text = repr((config.fingerprint(), today.isoformat(), rules.digest))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _unrecord(data: bytes) -> list[Diagnostic] | None:
    try:
        return [Diagnostic.from_row(row) for row in CHECK.codec.decode(data)]
    except (TypeError, ValueError):  # damaged or foreign (None, or rows of another shape)
        return None


def check_wiki(
    run: Run,
    pages: Mapping[str, Page] | None = None,
    progress: OnProgress | None = None,
    checking: OnProgress | None = None,
    stats: bool = True,
) -> CheckRun:
    """Check the run's snapshot, reusing what the store says is still valid. ``pages``, if
    the caller has loaded every page already, saves loading them again. ``progress(done,
    total)`` is told as pages are parsed, ``checking(done, total)`` as checks run.
    ``stats=False``: trust the stored status of the non-page files links lead to (the
    language server, between two keystrokes, when it knows the disk did not change)."""
    config, store, snapshot = run.config, run.store, run.snapshot
    rules = project_rules(config)
    settings = _settings_key(config, run.today, rules)
    digests = snapshot.digests()
    generation = run.generation() if run.use_store else None
    start = start_from_held(run, settings, generation) or start_from_store(run, settings)
    keys_now, changed, removed, old_facts = start.keys, start.changed, start.removed, start.facts

    def full_pages(paths: set[str]) -> dict[str, Page]:
        if pages is not None:
            return {p: pages[p] for p in paths}
        return dict(load_pages(run, only=paths, on_parsed=counting(progress)).pages.items())

    fresh = full_pages(changed)
    new_facts = {p: Facts.of(config, page, partial(snapshot.data, p)) for p, page in fresh.items()}
    changed_facts = _changed_facts(changed | removed, old_facts, new_facts)
    same_pages = not changed_facts  # the same paths, kinds, titles and slugs as last time
    moved = _changed_stats(store, str(config.root), run.watched) if stats else {}
    changed_facts |= {f"stat:{name}" for name in moved}
    stale = (changed | store.dependents(changed_facts)) & set(digests)
    fresh.update(full_pages(stale - changed))

    made = wiki_pages(run, start, fresh, stale, new_facts)
    wiki = Wiki(
        config,
        made.pages,
        list(snapshot.unreadable),
        today=run.today,
        checked=frozenset(stale),
        ingested=made.ingested,
        basics=made.basics,
    )
    previous = run.reuse.get(CHECK_WIKI, WHOLE, None)
    run.reuse.put(CHECK_WIKI, WHOLE, None, wiki)
    # What resolution indexed of the pages still holds (a patched start has the same pages).
    same_paths = previous is not None and (
        start.held is not None or list(previous.pages) == list(wiki.pages)
    )
    if same_pages and previous is not None and same_paths:
        previous.share_indexes(wiki)
    # The watcher saw only notes change since that check: the vault's files are as they were.
    if previous is not None and run.watched and run.watched.notes_only(str(config.root)):
        wiki.share_files(previous)
    enabled = enabled_codes(config, (), ())
    keys = {path: keys_now[path] for path in stale}
    checked = check_pages(run, wiki, stale, keys, enabled, checking, rules)
    diagnostics, rows, deps, links = checked.diagnostics, checked.rows, checked.deps, checked.links
    if start.held is not None:
        stored: dict[str, list[Diagnostic]] | None = start.held.own
    else:
        unchecked = [p for p in digests if p not in stale]
        stored = _stored_diagnostics(run, unchecked, start.stored_keys)
    if stored is None:  # a damaged record (rare): check everything afresh
        run.reuse.drop(CHECK_STATE, WHOLE)
        return check_wiki(replace(run, use_store=False), pages)  # stats: all afresh
    diagnostics += [d for path, found in stored.items() if path not in stale for d in found]
    _save(store, wiki, rows, deps, links, (old_facts, new_facts), changed, removed, moved)
    own = _reuse_checked(run, stale, removed, keys_now, checked.diagnostics)
    for path, facts_now in new_facts.items():
        run.reuse.put(PAGE_FACTS, path, keys_now[path], facts_now)
    if store.write_failed:  # the stored link table is not this wiki's: check it all afresh
        with memory_store() as scratch:
            afresh = check_wiki(replace(run, store=scratch, use_store=False), pages)
        run.reuse.drop(CHECK_WIKI, WHOLE)  # the stored facts may not be this wiki's either
        run.reuse.drop(CHECK_STATE, WHOLE)
        return replace(afresh, links_stored=False)
    # Held for the next check while the store is as this one leaves it: not when another
    # process wrote during this one (its own writes then forgot the known keys), nor when
    # no check comes next (a one-shot build's).
    if generation is not None and not run.reuse.one_run and run.generation() == generation:
        by_page = {**stored, **own} if start.held is not None else in_order(digests, stored, own)
        # As the check left them: made whole when the session settles (`check_start.settle`).
        state = CheckState(
            digests, keys_now, made.facts, made.pages, frozenset(stale), made.ingested,
            made.basics, by_page,
        )  # fmt: skip
        run.reuse.put(CHECK_STATE, WHOLE, (settings, generation), state)
    else:
        run.reuse.drop(CHECK_STATE, WHOLE)
    diagnostics += unreadable_diagnostics(wiki, enabled) + _graph_diagnostics(run, enabled)
    diagnostics += upkeep_diagnostics(run, made.facts, enabled)
    if run.use_store:
        save(run.reuse.engine, store)
    diagnostics += rules.problems
    return CheckRun(diagnostics, wiki, len(stale), facts=made.facts, shown=checked.shown)


def _graph_diagnostics(run: Run, enabled: Enabled) -> list[Diagnostic]:
    """The graph rules' diagnostics over the store's link table: made again only when the
    table or the codes enabled changed (a keystroke seldom changes its page's links)."""
    codes = ",".join(code for _, of in GRAPH_CHECKS for code in of if enabled(code))
    engine = run.reuse.engine
    if run.use_store:
        load(engine, run.store, [GRAPH_RULES])
    # A store that keeps no version (one in memory) has a table of its own each run.
    version = run.store.links_version() if run.use_store else ""
    engine.set(LINK_GRAPH, WHOLE, run.store, version or f"unversioned {id(run)}")
    return engine.get(GRAPH_RULES, codes)


def _stored_diagnostics(
    run: Run, paths: list[str], keys: dict[str, str]
) -> dict[str, list[Diagnostic]] | None:
    """The stored diagnostics of ``paths`` (pages not checked again, each with a valid record
    under ``keys``), by page in their order; None if a record is damaged. They are reused
    under their record's key and the generation of the store's known keys, which changes when
    another process wrote; the pages this run checks again are dropped, as their record
    changes, not its key. Nothing is reused where the store does not keep this run's keys."""
    generation = run.generation()
    found: dict[str, list[Diagnostic]] = {}
    if generation is not None:
        asked = ((path, (keys.get(path, ""), generation)) for path in paths)
        found = run.reuse.got(DIAGNOSTICS, asked)
    wanted = [p for p in paths if p not in found]
    if wanted:
        records = run.store.some_of(CHECK, wanted, len(paths))
        for path in wanted:
            key, value = records.get(path, (keys.get(path, ""), b""))
            diagnostics = _unrecord(value) if value else []
            if diagnostics is None:
                return None
            found[path] = diagnostics
            if generation is not None:
                run.reuse.put(DIAGNOSTICS, path, (key, generation), diagnostics)
    return {path: found[path] for path in paths}


def _reuse_checked(
    run: Run,
    checked: set[str],
    removed: set[str],
    keys: dict[str, str],
    diagnostics: list[Diagnostic],
) -> dict[str, list[Diagnostic]]:
    """Hold the diagnostics of the pages checked now as their new records say, so that the
    next run reads none of them; the records of the pages removed are gone. Returns them,
    by page."""
    generation = run.generation()
    own: dict[str, list[Diagnostic]] = {path: [] for path in checked}
    for d in diagnostics:
        if d.path in own:
            own[d.path].append(d)
    for path in removed:
        run.reuse.drop(DIAGNOSTICS, path)
    for path, found in own.items():
        if generation is None or run.store.write_failed:
            run.reuse.drop(DIAGNOSTICS, path)
        else:
            run.reuse.put(DIAGNOSTICS, path, (keys[path], generation), found)
    return own


def _changed_facts(
    paths: set[str], old: Mapping[str, Facts | None], new: dict[str, Facts]
) -> set[str]:
    """The fact names whose answer differs between the stored and the current pages."""
    names: set[str] = set()
    for path in paths:
        before, after = old.get(path), new.get(path)
        if before is not None and after is not None:
            names |= before.changed_names(after, path)
        elif before is not None or after is not None:
            for facts in (before, after):
                if facts is not None:
                    names |= facts.provided(path) | facts.provided_basics(path)
            names.add("stems")  # a page appeared or went: "did you mean" may change
    return names


def _changed_stats(store: Store, root: str, watched: Watched | None) -> dict[str, str]:
    """Non-page files that links lead to, whose status on disk changed since it was stored,
    with their status now; with a watcher that ran since, only the files it could have seen
    change are looked at."""
    found = {}
    real_folders: dict[str, str] = {}
    for name, status in store.keys(STAT).items():
        if watched is not None and watched.unchanged(name):
            continue
        now = stat_target(root, name, real_folders).value
        if now != status:
            found[name] = now
    return found


def _save(
    store: Store,
    wiki: Wiki,
    rows: list[tuple[str, str, bytes]],
    deps: dict[str, set[str]],
    links: dict[str, PageLinks],
    facts: tuple[Mapping[str, Facts | None], dict[str, Facts]],
    changed: set[str],
    removed: set[str],
    moved: dict[str, str],
) -> None:
    new_facts = facts[1]
    facts_rows = [(p, FACTS.key(), encode_facts(f)) for p, f in new_facts.items()]
    # Every status as the disk gives it now, also of the files no page links to any more:
    # what the next build (and the unchanged record) compares with.
    stats: dict[str, Any] = {**moved, **{path: s.value for path, s in wiki.stats.items()}}
    parts = {path: (c.kind, c.edges, c.related) for path, c in links.items()}
    shown_anew, alone = site_marks(store, parts, changed, facts, len(wiki.pages))
    with store.transaction():
        store.put(CHECK, rows)
        store.put(FACTS, facts_rows)
        store.put(STAT, [(path, status, b"") for path, status in stats.items()])
        store.set_deps(deps)
        # Before the link table changes: the site shows these pages and their neighbours
        # differently now (see build.siteinfo).
        store.mark_pending(shown_anew | removed, alone)
        store.set_links(parts)
        store.forget_pages(removed)
