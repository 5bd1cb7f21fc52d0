"""The page checks of the pages to check again: each page's diagnostics, its record, the
facts of other pages it read, and its part of the link graph; in the run's workers when there
are enough pages (a cold check), each worker checking a share of them against the whole wiki.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from kbtool.checks import Enabled, page_diagnostics
from kbtool.checks.graph import PageLinks, page_links
from kbtool.checks.project import Read, project_diagnostics
from kbtool.diagnostics import Diagnostic
from kbtool.rule_loader import ProjectRules
from kbtool.stages.run import OnProgress, Run
from kbtool.stages.workers import chunked
from kbtool.store.records import CHECK
from kbtool.wiki import ResolvedLink, ShownLink, Status, Wiki

#: Below this many pages to check, forking workers costs more than it saves.
_PARALLEL_THRESHOLD = 512


@dataclass
class Checked:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: each page's check record: (path, key, value)
    rows: list[tuple[str, str, bytes]] = field(default_factory=list)
    #: the facts of other pages each page's checks read
    deps: dict[str, set[str]] = field(default_factory=dict)
    links: dict[str, PageLinks] = field(default_factory=dict)
    #: each page's links as the site shows them (so that site facts resolve none again)
    shown: dict[str, tuple[ShownLink, ...]] = field(default_factory=dict)


def check_pages(
    run: Run,
    wiki: Wiki,
    stale: set[str],
    keys: dict[str, str],
    enabled: Enabled,
    progress: OnProgress | None,
    rules: ProjectRules | None = None,
) -> Checked:
    """Run the page checks on the ``stale`` pages of ``wiki`` (``keys``: their records'),
    and the project's ``rules``."""
    paths = sorted(stale)
    project = _Project(rules or ProjectRules(), run.snapshot.data)
    if not run.workers.worth_forking(len(paths), _PARALLEL_THRESHOLD):
        return _check(wiki, paths, keys, enabled, progress if stale else None, project)[0]
    chunks = [paths[r.start : r.stop] for r in chunked(len(paths), run.workers.jobs, 32, 256)]
    result = Checked()
    work = (wiki, keys, enabled, project)
    for done, (part, stats) in enumerate(run.workers.map(_check_chunk, work, chunks), 1):
        result.diagnostics += part.diagnostics
        result.rows += part.rows
        result.deps.update(part.deps)
        result.links.update(part.links)
        result.shown.update(part.shown)
        wiki.add_stats(stats)  # what the disk said of the files the links lead to
        if progress:
            progress(done, len(chunks))
    return result


@dataclass(frozen=True)
class _Project:
    """The project's rules, and how they read a page's bytes (the run's snapshot)."""

    rules: ProjectRules
    read: Read


def _check_chunk(
    work: tuple[Wiki, dict[str, str], Enabled, _Project], paths: list[str]
) -> tuple[Checked, dict[str, Status]]:
    wiki, keys, enabled, project = work
    return _check(wiki, paths, keys, enabled, None, project)


def _check(
    wiki: Wiki,
    paths: list[str],
    keys: dict[str, str],
    enabled: Enabled,
    progress: OnProgress | None,
    project: _Project,
) -> tuple[Checked, dict[str, Status]]:
    """The checks of ``paths`` (sorted), and the disk's answers they asked for."""
    part = wiki.checking(paths)
    found: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in page_diagnostics(part, enabled, progress):
        found[d.path].append(d)
    for d in project_diagnostics(part, project.rules, enabled, project.read):
        found[d.path].append(d)
    links_of: dict[str, list[ResolvedLink]] = defaultdict(list)
    for item in part.links:
        links_of[item.page.path].append(item)
    result = Checked()
    for path in paths:
        own = found.pop(path, [])
        result.links[path] = page_links(part.pages[path], links_of[path])
        result.shown[path] = tuple(ShownLink.of(item) for item in links_of[path])
        result.diagnostics += own
        result.rows.append((path, keys[path], record(own)))
        result.deps[path] = part.reads(path)  # as the facts view recorded them
    result.diagnostics += [d for ds in found.values() for d in ds]  # none: all at their page
    return result, part.stats


def record(diagnostics: list[Diagnostic]) -> bytes:
    """A page's diagnostics as JSON; empty (not even ``[]``) for a clean page, so that a run
    reads only the records of pages that have something to report."""
    return CHECK.codec.encode([d.row() for d in diagnostics])
