"""``kbtool build``, as its stages in order:

1. load the wiki: unchanged pages and their rendered bodies come from the store; the others
   are parsed, and their bodies rendered from the same tokens, in parallel workers;
2. gate: the checks (incremental), then the cells (cached); any error or failing cell stops
   here, and ``site/`` is not touched;
3. plan: every output of the site with a key of everything it depends on;
4. stage: in a folder beside ``site/``, link the outputs whose key is unchanged from the live
   site and render the others (pages in parallel, indexes and the graph meanwhile);
5. search index of the pages, updated from the live site's;
6. swap the staged site in, and record what was published.

With nothing changed since the last successful build (same file contents, settings, day and
copied files), the build stops before stage 1: see :mod:`kbtool.memo`. Otherwise, with every
key unchanged, stage 3 finds nothing to render and the build stops there. Every page's
assembly fills its stored body's holes (links, cell outputs): no page is parsed twice.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, TextIO

from kbtool.checking import check_wiki
from kbtool.checks import filter_diagnostics
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.errors import KbtoolError
from kbtool.execute.results import PageResult
from kbtool.lifecycle import worker_pool
from kbtool.load import (
    Memory,
    default_jobs,
    fetch_bodies,
    fetch_search_docs,
    load_pages,
    scan,
)
from kbtool.memo import (
    diagnostics_from_json,
    diagnostics_to_json,
    forget_memo,
    load_memo,
    memo_key,
    save_memo,
)
from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.diagrams import diagram_diagnostics, vendor_files
from kbtool.render.graphpage import graph_data, graph_page, graph_script
from kbtool.render.highlight import stylesheet
from kbtool.render.indexes import index_pages
from kbtool.render.manifest import (
    Record,
    forget_manifest,
    load_manifest,
    save_manifest,
    stat_signature,
)
from kbtool.render.pages import Rendered, page_key, render_page
from kbtool.render.progress import Progress
from kbtool.render.site import collect
from kbtool.render.staging import (
    build_lock,
    make_staging,
    remove_stale_staging,
    reuse_file,
    swap_in,
    write_file,
)
from kbtool.render.templates import ASSETS_DIR, renderer_version
from kbtool.store import Store, open_store
from kbtool.timings import Timings
from kbtool.wiki import Wiki

#: Below this many pages to render, worker processes cost more than they save.
_PARALLEL_THRESHOLD = 48


@dataclass
class BuildReport:
    ok: bool
    site_dir: Path
    diagnostics: list[Diagnostic] = field(default_factory=list)
    failed_cells: list[PageResult] = field(default_factory=list)
    pages: int = 0
    outputs: int = 0
    rendered: int = 0
    reused: int = 0
    #: names of the outputs rendered by this build ("page:<path>", "index.html", ...)
    rendered_outputs: list[str] = field(default_factory=list)
    #: False when every output was already up to date and ``site/`` was left alone
    published: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    search: Any = None

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)


@dataclass(frozen=True)
class Planned:
    """One output of the site: a page, an index page, the graph data, an asset."""

    name: str
    key: str
    kind: str  # "page" | "index" | "graph" | "static"
    arg: Any


# -- stage 2: the gate -----------------------------------------------------------------------


def run_cells(
    config: Config, wiki: Wiki, jobs: int | None, use_cache: bool
) -> dict[str, PageResult]:
    """Results of every page that runs (from the cache when unchanged)."""
    try:
        from kbtool.execute import run_pages, should_run
    except ImportError:  # The runner is not there: a site without cell outputs.
        return {}
    pages = [p for p in wiki.pages.values() if p.python_cells and should_run(config, p)]
    if not pages:
        return {}
    results = run_pages(config, pages, jobs=jobs, use_cache=use_cache)
    return {r.path: r for r in results}


# -- stage 3: the plan ----------------------------------------------------------------------


def _digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def static_files() -> dict[str, bytes]:
    """The assets shipped in the package, plus the highlighting colours."""
    files = {
        f"assets/{path.name}": path.read_bytes()
        for path in sorted(ASSETS_DIR.iterdir())
        if path.is_file() and not path.name.startswith(".")
    }
    files["assets/pygments.css"] = stylesheet().encode("utf-8")
    files.update(vendor_files())  # Mermaid, when `make` installed it
    return files


def plan(site: SiteContext) -> list[Planned]:
    planned = [
        Planned("page:" + path, page_key(site, path), "page", path) for path in site.wiki.pages
    ]
    planned += [
        Planned(index.output, index.key(site), "index", index) for index in index_pages(site)
    ]
    data = graph_data(site)
    page = graph_page(site, data)
    planned.append(Planned(urls.GRAPH, page.key(site), "index", page))
    planned.append(Planned(urls.GRAPH_DATA, data.key(site), "graph", data))
    planned += [
        Planned(name, _digest(content), "static", content)
        for name, content in static_files().items()
    ]
    return planned


def _is_fresh(item: Planned, record: Record | None, root: Path) -> bool:
    if record is None or record.key != item.key:
        return False
    return all(stat_signature(root / path) == sig for path, sig in record.copies.items())


# -- stage 4: rendering --------------------------------------------------------------------

# Handed to forked workers through memory they inherit, as load.py does for parsing.
_WORK: dict[str, Any] = {}


def _render_pages(paths: list[str]) -> list[tuple[str, Rendered]]:
    site: SiteContext = _WORK["site"]
    staging: Path = _WORK["staging"]
    done = []
    for path in paths:
        try:
            rendered = render_page(site, path)
        except Exception as error:  # a renderer bug on one page fails that page alone
            message = f"page cannot be rendered ({type(error).__name__}: {error}); please report it"
            rendered = Rendered({}, (Diagnostic(path, 1, 1, "KB502", "error", message),))
        for name, text in rendered.files.items():
            write_file(staging, name, text)
        for copy in rendered.copies:
            target = staging / copy
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(site.config.root / copy, target)
        done.append((path, rendered))
    return done


def _chunks(items: list[str], jobs: int) -> list[list[str]]:
    size = max(4, min(64, len(items) // (jobs * 8) or 1))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _render_other(site: SiteContext, staging: Path, item: Planned) -> Rendered:
    if item.kind == "index":
        content = item.arg.render(site)
    elif item.kind == "graph":
        content = graph_script(site, item.arg)
    else:
        content = item.arg
    write_file(staging, item.name, content)
    return Rendered({item.name: ""})


def _record(site: SiteContext, item: Planned, rendered: Rendered) -> Record:
    root = site.config.root
    copies = {path: stat_signature(root / path) for path in rendered.copies}
    files = tuple(sorted(set(rendered.files) | set(rendered.copies)))
    return Record(item.key, files, copies, rendered.diagnostics)


def _render(
    site: SiteContext,
    staging: Path,
    stale: list[Planned],
    jobs: int,
    on_done: Callable[[int], None],
) -> dict[str, Record]:
    records: dict[str, Record] = {}
    pages = [item for item in stale if item.kind == "page"]
    others = [item for item in stale if item.kind != "page"]
    by_path = {item.arg: item for item in pages}
    use_pool = (
        jobs > 1
        and len(pages) >= _PARALLEL_THRESHOLD
        and "fork" in multiprocessing.get_all_start_methods()
    )
    if not use_pool:
        for path, rendered in _render_pages_here(site, staging, [i.arg for i in pages]):
            records[by_path[path].name] = _record(site, by_path[path], rendered)
            on_done(1)
        for item in others:
            records[item.name] = _record(site, item, _render_other(site, staging, item))
            on_done(1)
        return records
    _WORK.update(site=site, staging=staging)
    try:
        with worker_pool(jobs) as pool:
            futures = [
                pool.submit(_render_pages, chunk) for chunk in _chunks([i.arg for i in pages], jobs)
            ]
            # While the workers render pages, this process renders the indexes and the graph.
            for item in others:
                records[item.name] = _record(site, item, _render_other(site, staging, item))
                on_done(1)
            for future in futures:
                for path, rendered in future.result():
                    records[by_path[path].name] = _record(site, by_path[path], rendered)
                    on_done(1)
    finally:
        _WORK.clear()
    return records


def _render_pages_here(
    site: SiteContext, staging: Path, paths: list[str]
) -> list[tuple[str, Rendered]]:
    _WORK.update(site=site, staging=staging)
    try:
        return _render_pages(paths)
    finally:
        _WORK.clear()


def _search_index(
    site: SiteContext, staging: Path, site_dir: Path, fetch: Callable[[list[str]], Any]
) -> Any:
    """The search index, into ``staging/search/``, updated from the live site's."""
    from kbtool.search.site import build_search

    labels = site.config.type_labels
    return build_search(site.wiki, staging, site_dir, fetch, labels).to_json()


# -- the whole build -------------------------------------------------------------------------


def build_site(
    config: Config,
    jobs: int | None = None,
    use_cache: bool = True,
    full: bool = False,
    progress: TextIO | None = None,
    memory: Memory | None = None,
) -> BuildReport:
    """Check, run the cells, and publish ``site/`` if both pass. Never raises on bad content.
    ``memory``, kept by a long-running caller (``kbtool serve``), holds the pages between
    builds so that only edited ones are read from the store or parsed."""
    site_dir = (config.root / config.site_dir).resolve()
    report = BuildReport(ok=False, site_dir=site_dir)
    clock = Timings(report.seconds)
    jobs = jobs or default_jobs(config)
    with build_lock(config.cache_path), open_store(config.cache_path) as store:
        remove_stale_staging(site_dir)
        snapshot = scan(config)
        key = memo_key(config, snapshot.digest(), date.today(), str(site_dir))
        if use_cache and not full and _unchanged_since_last_build(store, config, key, report):
            clock.lap("load")
            return report
        forget_memo(store, "build")
        bar = Progress(len(snapshot.files), "reading", progress)
        loaded = load_pages(
            config,
            snapshot,
            store,
            jobs,
            use_cache,
            True,
            on_parsed=lambda n, _: bar.advance(n),
            memory=memory,
        )
        bar.close()
        report.pages = len(loaded.pages)
        clock.lap("load")
        checked = check_wiki(config, snapshot, store, jobs, use_cache, pages=loaded.pages)
        report.diagnostics = filter_diagnostics(checked.diagnostics, config)
        wiki = checked.wiki.with_pages(loaded.pages)
        report.diagnostics += filter_diagnostics(diagram_diagnostics(wiki), config)
        clock.lap("check")
        if report.errors:
            return report
        results = run_cells(config, wiki, jobs, use_cache)
        report.failed_cells = [r for r in results.values() if r.status == "failed"]
        clock.lap("cells")
        if report.failed_cells:
            return report

        site = SiteContext(config, wiki, collect(wiki), results, renderer_version(), loaded.bodies)
        planned = plan(site)
        report.outputs = len(planned)
        manifest = {} if full or not site_dir.is_dir() else load_manifest(store, site_dir)
        fresh: list[Planned] = []
        stale: list[Planned] = []
        for item in planned:
            is_fresh = _is_fresh(item, manifest.get(item.name), config.root)
            (fresh if is_fresh else stale).append(item)
        clock.lap("plan")
        complete = all((site_dir / f).is_file() for r in manifest.values() for f in r.files)
        if not stale and set(manifest) == {p.name for p in planned} and complete:
            report.reused = len(fresh)
            report.diagnostics += filter_diagnostics(
                (d for r in manifest.values() for d in r.diagnostics), config
            )
            report.ok = not report.errors
        else:

            def read_bodies(paths: list[str]) -> None:
                fetch_bodies(config, snapshot, store, loaded, paths, memory)

            def read_docs(paths: list[str]) -> Any:
                return fetch_search_docs(config, snapshot, store, loaded, paths)

            _stage_and_publish(
                site,
                site_dir,
                fresh,
                stale,
                manifest,
                jobs,
                report,
                clock,
                progress,
                store,
                read_bodies,
                read_docs,
            )
        if report.ok:
            _remember_build(store, key, wiki, site_dir, report)
    return report


def _remember_build(
    store: Store, key: str, wiki: Wiki, site_dir: Path, report: BuildReport
) -> None:
    """What the next build needs to tell, without loading anything, that nothing changed."""
    copies: dict[str, str] = {}
    for record in load_manifest(store, site_dir).values():
        copies.update(record.copies)
    payload = {
        "diagnostics": diagnostics_to_json(report.diagnostics),
        "pages": report.pages,
        "outputs": report.outputs,
        "copies": copies,
        "site": str(site_dir),
        "site_files": _count_files(site_dir),
    }
    save_memo(store, "build", key, wiki.stats, payload)


def _count_files(folder: Path) -> int:
    """How many files the published site has: a file deleted from it is noticed."""
    return sum(len(files) for _, _, files in os.walk(folder))


def _unchanged_since_last_build(
    store: Store, config: Config, key: str, report: BuildReport
) -> bool:
    memo = load_memo(store, config, "build", key)
    if memo is None or memo.get("site_files") != _count_files(report.site_dir):
        return False
    diagnostics = diagnostics_from_json(memo.get("diagnostics"))
    copies = memo.get("copies")
    if diagnostics is None or not isinstance(copies, dict):
        return False
    if any(stat_signature(config.root / path) != sig for path, sig in copies.items()):
        return False  # An image the site copied was edited.
    report.diagnostics = diagnostics
    report.pages = report.outputs = report.reused = 0
    if isinstance(memo.get("pages"), int) and isinstance(memo.get("outputs"), int):
        report.pages, report.outputs = memo["pages"], memo["outputs"]
        report.reused = report.outputs
    report.ok = True
    return True


def _stage_and_publish(
    site: SiteContext,
    site_dir: Path,
    fresh: list[Planned],
    stale: list[Planned],
    manifest: dict[str, Record],
    jobs: int,
    report: BuildReport,
    clock: Timings,
    progress: TextIO | None,
    store: Store,
    read_bodies: Callable[[list[str]], None],
    read_docs: Callable[[list[str]], Any],
) -> None:
    config = site.config
    staging = make_staging(site_dir)
    try:
        records: dict[str, Record] = {}
        for item in fresh:
            record = manifest[item.name]
            if all(reuse_file(site_dir, staging, name) for name in record.files):
                records[item.name] = record
            else:  # A file went missing from site/: render the output again.
                stale.append(item)
        report.reused = len(records)
        read_bodies([item.arg for item in stale if item.kind == "page"])
        clock.lap("reuse")
        bar = Progress(len(stale), "rendering", progress)
        records.update(_render(site, staging, stale, jobs, bar.advance))
        bar.close()
        report.rendered = len(stale)
        report.rendered_outputs = sorted(item.name for item in stale)
        clock.lap("render")
        build_diagnostics = filter_diagnostics(
            (d for r in records.values() for d in r.diagnostics), config
        )
        report.diagnostics = sorted(report.diagnostics + build_diagnostics)
        if report.errors:
            return  # `finally` removes the staging folder; site/ stays as it was
        if config.search:
            report.search = _search_index(site, staging, site_dir, read_docs)
            clock.lap("search")
        forget_manifest(store)
        swap_in(staging, site_dir)
        save_manifest(store, site_dir, records, manifest)
        report.ok = report.published = True
        clock.lap("swap")
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


__all__ = ["BuildReport", "KbtoolError", "build_site", "plan", "run_cells", "static_files"]
