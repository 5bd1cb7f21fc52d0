"""The build's stages after the scan, in order: load, check, cells, site facts, similar pages,
history, plan, render, search, swap (``build_site`` in :mod:`kbtool.stages.site` runs them
when the scan found something changed)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

from kbtool import collector
from kbtool.config import Config
from kbtool.diagnostics import filter_diagnostics, sort_key
from kbtool.engine.persist import save
from kbtool.execute.results import PageResult
from kbtool.parse.digest import content_digest
from kbtool.progress import Progress
from kbtool.render.context import SiteContext
from kbtool.render.diagrams import diagram_diagnostics
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.build_report import BuildReport
from kbtool.stages.cells import run_cells
from kbtool.stages.check import CheckRun, check_wiki
from kbtool.stages.embeds import embedded
from kbtool.stages.facts import Facts
from kbtool.stages.history import site_changes
from kbtool.stages.listed import listings_digest
from kbtool.stages.load import Loaded, load_pages
from kbtool.stages.plan import Plan, left_out_diagnostics, plan_site
from kbtool.stages.publish.lock import build_lock
from kbtool.stages.publish.published import Published, load_published
from kbtool.stages.publish.spare import (
    clear_changed,
    keep_spare,
    linked_spare,
    mostly_outdated,
    take_spare,
)
from kbtool.stages.publish.staging import remove_folder, staging_folder
from kbtool.stages.publish.stored_spare import store_spare, take_stored_spare
from kbtool.stages.publish.swap import publish
from kbtool.stages.render import stage
from kbtool.stages.reused import SITE_RECORD, SPARE
from kbtool.stages.run import Run, new_run
from kbtool.stages.scan import Snapshot
from kbtool.stages.search import index_site
from kbtool.stages.similar import similar_pages
from kbtool.stages.siteinfo import site_infos
from kbtool.stages.unchanged import forget_build, remember_build
from kbtool.stages.upkeep import set_page_inputs
from kbtool.store.db import open_store
from kbtool.store.records import OUTPUT
from kbtool.wiki import Wiki


def build_changed(run: Run, report: BuildReport, key: str, full: bool, spare: bool) -> None:
    """The stages of a build that found something changed, told in ``report``; ``key``: the
    whole build's, remembered when it publishes."""
    forget_build(run)
    planned = _through_plan(run, report, full)
    if planned is None:
        return
    site, plan, published, loaded, checked_wiki = planned
    published = _stage_and_publish(run, site, plan, published, loaded, report, spare)
    if run.use_store:  # once the site is served: what the engine made, for the next process
        save(run.reuse.engine, run.store)
    if report.ok:
        run.reuse.put(SITE_RECORD, WHOLE, str(run.config.site_path), published)
        index_files = _index_files(report)
        remember_build(run, key, checked_wiki, report.diagnostics, published, index_files)


def _index_files(report: BuildReport) -> int | None:
    """How many files the search index of the site this build published holds (0: none);
    None if it published no site."""
    if not report.published:
        return None
    return report.search["files"] if isinstance(report.search, dict) else 0


class _Planned(NamedTuple):
    site: SiteContext
    plan: Plan
    published: dict[str, Published]
    loaded: Loaded
    #: the check's wiki (stand-ins for the pages not checked again)
    checked_wiki: Wiki


def _through_plan(run: Run, report: BuildReport, full: bool) -> _Planned | None:
    """The stages from load to the plan, told in ``report``; None if the checks or the cells
    stop the build."""
    config, store, reuse = run.config, run.store, run.reuse
    site_dir = config.site_path
    loaded = _load(run)
    checked = _gate(run, loaded, report)
    if checked is None:
        return None
    # What the build has loaded and checked it keeps to its end: out of the garbage
    # collector's sight, a collection never walks every page again (seconds, cold).
    collector.hold()
    # The check's wiki, with the real pages (each read when a stage asks for it).
    wiki = checked.wiki.with_pages(loaded.pages)
    results = _cells(run, wiki, checked, report)
    if results is None:
        return None
    held_record = reuse.get(SITE_RECORD, WHOLE, str(site_dir))
    published = {} if full else load_published(store, site_dir, held_record)
    facts = site_infos(run, wiki, checked)
    run.clock.lap("plan")  # the site facts' share of it
    listed = listings_digest(run.reuse, facts.listings)
    similar = similar_pages(run, facts.listings, listed)
    run.clock.lap("similar")
    folders = (*config.wiki_folders, config.sources)
    changes = tuple(site_changes(run, list(folders), facts.listings, listed))
    run.clock.lap("history")
    site = SiteContext(
        config, wiki, facts.infos, facts.listings, results, similar=similar, changes=changes
    )
    site = site.but(embeds=embedded(run, loaded, site, listed))
    set_page_inputs(run, checked.facts)  # what the output rows read of every page
    trusted = store if run.use_store else None
    plan = plan_site(trusted, site, published, run.snapshot.digests(), reuse)
    if plan.left_out:
        found = [*report.diagnostics, *left_out_diagnostics(plan)]
        report.diagnostics = filter_diagnostics(found, config)
    report.outputs = len(plan.outputs)
    run.clock.lap("plan")
    return _Planned(site, plan, published, loaded, checked.wiki)


def keep_warm(config: Config, reuse: Reuse, snapshot: Snapshot) -> None:
    """Run a build's stages once over the unchanged wiki, so that ``reuse`` holds what every
    rebuild reads of every page (pages, facts, diagnostics, site facts, listings, the
    outputs' keys, the published site's record) and a spare linked from the live site: a
    session's first rebuild after an edit is then as quick as the later ones, where a build
    that found nothing changed made none of them. ``snapshot``: the files as the last build
    read them (a change since is the next build's to see). Nothing is rendered or published:
    a site that differs from its record is the next build's to mend."""
    site_dir = config.site_path
    with build_lock(config.cache_path), open_store(config.cache_path) as store:
        store.keep_keys(reuse.keys)
        # One process: every page comes from its records, none is parsed.
        run = new_run(config, store, jobs=1, reuse=reuse, snapshot=snapshot)
        planned = _through_plan(run, BuildReport(ok=False, site_dir=site_dir), full=False)
        save(reuse.engine, store)
        published = planned.published if planned else load_published(store, site_dir)
        reuse.put(SITE_RECORD, WHOLE, str(site_dir), published)
        store.keys(OUTPUT)  # what the next build compares that record with, kept by the store
        spare = reuse.get(SPARE, WHOLE, str(site_dir))
        reuse.drop(SPARE, WHOLE)
        if spare is None:
            spare = take_stored_spare(store, config.cache_path, site_dir, published)
        if spare is not None and mostly_outdated(spare, published):
            remove_folder(site_dir, spare.folder)  # the next build would clear it file by file
            spare = None
        spare = spare or linked_spare(site_dir, published)
        if spare is not None:
            reuse.put(SPARE, WHOLE, str(site_dir), spare)
    if planned is not None:
        planned.checked_wiki.make_indexes()
    _warm_up(config)


#: a page with a little of everything a page worker meets, parsed once ahead (see _warm_up)
_SAMPLE_PAGE = """---
type: concept
summary: 注意力机制的示例
related: [other.md]
---
# 注意力（Attention）

正文 **加粗** 与 [链接](other.md#节)，公式 $QK^T / \\sqrt{d_k}$，`code`。

| 列 | 值 |
|---|---|
| a | 1 |

```python
print("x")
```
"""


def _warm_up(config: Config) -> None:
    """Pass a sample page through the page worker (its parse, search terms and body), compile
    the templates and read the live search index's tables now: a process whose first build
    found nothing to do has done none of it, and its first rebuild would wait for the
    imports, the parser's and the search codec's tables, the templates and the index's."""
    from kbtool.render.templates import TEMPLATES_DIR, environment
    from kbtool.search.site import read_ahead
    from kbtool.stages.pageworker import process

    sample = _SAMPLE_PAGE.encode()
    process(("wiki/sample.md", sample, "wiki", content_digest(sample)), config.language)
    for template in sorted(TEMPLATES_DIR.glob("*.html")):
        environment().get_template(template.name)
    if config.search:
        read_ahead(config.site_path)


def _stage_and_publish(
    run: Run,
    site: SiteContext,
    plan: Plan,
    published: dict[str, Published],
    loaded: Loaded,
    report: BuildReport,
    keep_old: bool = False,
) -> dict[str, Published]:
    """Render into a staging folder, index it, and swap it in unless rendering found errors:
    the record of the site published now (else of the one that stays). With every output
    fresh, the live site stays as it is. ``keep_old``: keep the former site as a spare."""
    if plan.nothing_to_do(published, run.config.site_path):
        report.reused = len(plan.fresh)
        found = (d for r in published.values() for d in r.diagnostics)
        report.diagnostics += filter_diagnostics(found, run.config)
        report.ok = not report.errors
        return published
    site_dir = run.config.site_path
    held = run.reuse.get(SPARE, WHOLE, str(site_dir))
    if held is None and run.use_store:
        held = take_stored_spare(run.store, run.config.cache_path, site_dir, published)
    spare = take_spare(site_dir, held)
    run.reuse.drop(SPARE, WHOLE)
    with staging_folder(site_dir, spare) as staging:
        if spare is not None:
            fresh = {item.name for item in plan.fresh}
            told = held.told if held is not None else None
            clear_changed(staging, published, fresh, search=run.config.search, told=told)
        staged = stage(run, site, plan, published, loaded, staging.folder, staging.held)
        # Rendered: the bodies are let go before the search index's workers fork (a cold
        # build of 20,000 pages held 180 MB of them).
        loaded.bodies.clear()
        report.reused, report.rendered = staged.reused, len(staged.rendered)
        report.rendered_outputs = sorted(item.name for item in staged.rendered)
        found = (d for r in staged.outputs.values() for d in r.diagnostics)
        found_now = filter_diagnostics(found, run.config)
        report.diagnostics = sorted(report.diagnostics + found_now, key=sort_key)
        if report.errors:
            return published
        if run.config.search:
            report.search = index_site(run, loaded, staging.folder, site.listings)
        old = publish(run, staging, staged.outputs, published, keep_old=True)
        rendered = report.rendered_outputs
        _keep_former_site(run, old, published, staged.outputs, rendered, in_memory=keep_old)
        report.ok = report.published = True
        return staged.outputs


def _keep_former_site(
    run: Run,
    old: Path | None,
    former: dict[str, Published],
    now: dict[str, Published],
    rendered: list[str],
    in_memory: bool,
) -> None:
    """The folder ``old`` holding the former site (``former``, its record) as the next
    build's staging folder: held in memory by a session, else in the cache folder; removed
    where it cannot be kept. ``now``: the record of the site swapped in, whose outputs are
    ``former``'s very records but the ones ``rendered``."""
    if old is None:
        return
    site_dir = run.config.site_path
    if in_memory:
        kept = keep_spare(site_dir, old, former, now, rendered)
        if kept is not None:
            run.reuse.put(SPARE, WHOLE, str(site_dir), kept)
        return
    cache = run.config.cache_path
    if not (run.use_store and store_spare(run.store, cache, site_dir, old, former, now)):
        remove_folder(site_dir, old)


def _load(run: Run) -> Loaded:
    bar = Progress(len(run.snapshot.files), "reading", run.progress)
    loaded = load_pages(run, with_bodies=True, on_parsed=lambda n, _: bar.advance(n))
    bar.close()
    run.clock.lap("load")
    return loaded


def _gate(run: Run, loaded: Loaded, report: BuildReport) -> CheckRun | None:
    """The checks (and the diagrams' own), the wiki to build holding every page; None if an
    error stops the build."""
    report.pages = len(loaded.pages)
    checked = check_wiki(run, pages=loaded.pages)
    found = checked.diagnostics + diagram_diagnostics(_diagrams(checked.facts))
    report.diagnostics = filter_diagnostics(found, run.config)
    run.clock.lap("check")
    return None if report.errors else checked


def _diagrams(facts: Mapping[str, Facts]) -> Iterator[tuple[str, int]]:
    """Each diagram's page and line, from every page's facts (read only when iterated)."""
    for path, page_facts in facts.items():
        for line in page_facts.diagrams:
            yield path, line


def _cells(
    run: Run, wiki: Wiki, checked: CheckRun, report: BuildReport
) -> dict[str, PageResult] | None:
    """The cells' results; None if one failed, which stops the build."""
    runs = [path for path, facts in checked.facts.items() if facts.runs_cells]
    results = run_cells(run, wiki, runs)
    report.failed_cells = [r for r in results.values() if r.status == "failed"]
    run.clock.lap("cells")
    return None if report.failed_cells else results
