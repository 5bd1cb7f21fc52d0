"""Stage 6, render: into the staging folder, link the fresh outputs from the live site and
render the stale ones: pages in the run's workers, indexes and the graph meanwhile here."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from kbtool.render.context import SiteContext
from kbtool.render.graphpage import graph_communities, graph_layout, graph_script
from kbtool.render.pages import Rendered, render_page
from kbtool.render.preview import render_preview
from kbtool.reuse.lazy import Lazy
from kbtool.reuse.values import Reusable, Reuse
from kbtool.stages.embeds import shown_embeds
from kbtool.stages.index_plan import with_data
from kbtool.stages.load import Loaded, fetch_bodies
from kbtool.stages.output_rows import row_content
from kbtool.stages.pageworker import renderer_failed
from kbtool.stages.plan import Plan
from kbtool.stages.planned import (
    GraphOutput,
    IndexOutput,
    PerPage,
    Planned,
    PreviewOutput,
    RowOutput,
    StaticOutput,
)
from kbtool.stages.publish.published import Published, same, stat_signature
from kbtool.stages.publish.staging import reuse_file, write_file, write_or_link
from kbtool.stages.reused import FRAMES, OWN_FILLS
from kbtool.stages.run import Run
from kbtool.stages.workers import chunked

_T = TypeVar("_T")

#: Below this many pages to render, forking workers costs more than it saves.
_PARALLEL_THRESHOLD = 48


@dataclass(frozen=True)
class Staged:
    """The staging folder's outputs: every output's record, and which were rendered now."""

    outputs: dict[str, Published]
    rendered: list[Planned]
    reused: int


def stage(
    run: Run,
    site: SiteContext,
    plan: Plan,
    published: dict[str, Published],
    loaded: Loaded,
    staging: Path,
    held: dict[str, Published] | None = None,
) -> Staged:
    """Fill ``staging`` with every output of ``plan``; the stale pages' bodies are read now.
    ``held``: the fresh outputs ``staging`` holds already, as the live site does."""
    site_dir = run.config.site_path
    outputs: dict[str, Published] = {}
    stale = list(plan.stale)
    held = held or {}
    for item in plan.fresh:
        record = published[item.name]
        if same(held.get(item.name), record) or all(
            reuse_file(site_dir, staging, name) for name in record.files
        ):
            outputs[item.name] = record
        else:  # A file went missing from site/: render the output again.
            stale.append(item)
    reused = len(outputs)
    stale = with_data(site, stale)
    paths = list(dict.fromkeys(item.path for item in stale if isinstance(item, PerPage)))
    # What rendering the stale pages reads, read here before the workers fork: the notes
    # they show in place too.
    loaded.pages.load(paths)
    infos = site.infos.load(paths) if isinstance(site.infos, Lazy) else site.infos
    shown = [p for path in paths if path in site.embeds for p in site.embeds[path].notes]
    bodies = fetch_bodies(run, loaded, list(dict.fromkeys(paths + shown)))
    site = site.but(bodies=bodies, infos=infos, shown=shown_embeds(run, site, paths))
    run.clock.lap("reuse")
    from kbtool.progress import Progress

    bar = Progress(len(stale), "rendering", run.progress)
    outputs.update(_render(run, site, staging, stale, bar.advance))
    bar.close()
    run.clock.lap("render")
    return Staged(outputs, stale, reused)


def _render_pages(
    work: tuple[SiteContext, Path], items: list[tuple[str, str]]
) -> list[tuple[tuple[str, str], Rendered]]:
    """Render each (kind, path) of ``items``: a page's HTML or its preview data."""
    site, staging = work
    site_dir = site.config.site_path  # resolved once: each resolve asks the disk
    done = []
    for kind, path in items:
        try:
            preview = kind == PreviewOutput.kind
            rendered = render_preview(site, path) if preview else render_page(site, path)
        except Exception as error:  # a renderer bug on one page fails that page alone
            rendered = Rendered({}, (renderer_failed(path, error),))
        for name, text in rendered.files.items():
            write_or_link(site_dir, staging, name, text)
        for copy in rendered.copies:
            _copy(site.config.root / copy, staging / copy)
        # The files are written: their names go back for the record, not their text (which
        # the main process would otherwise hold for every page until the stage ends).
        done.append(((kind, path), replace(rendered, files=dict.fromkeys(rendered.files, ""))))
    return done


def _copy(source: Path, target: Path) -> None:
    """As a new file renamed into place: the target may be a link to the live site's file.
    Two workers may copy one file (an image two pages show): each through a name of its own.
    A target of the source's size and time is the copy already (a page rendered again at each
    save of a session copies nothing)."""
    if _same_file(source, target):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.copy2(source, tmp)
    os.replace(tmp, target)


def _same_file(source: Path, target: Path) -> bool:
    # ``copy2`` keeps the time to the nanosecond: as rsync's quick check compares
    try:
        seen, there = source.stat(), target.stat()
    except OSError:
        return False
    return (seen.st_size, seen.st_mtime_ns) == (there.st_size, there.st_mtime_ns)


def _render_other(
    run: Run,
    site: SiteContext,
    staging: Path,
    item: IndexOutput | GraphOutput | RowOutput | StaticOutput,
) -> Rendered:
    content: str | bytes
    if isinstance(item, RowOutput):
        made = row_content(run.reuse.engine, item)
        content = made if made is not None else b""
        write_file(staging, item.file, content)
        return Rendered({item.file: ""})
    if isinstance(item, IndexOutput):
        assert item.page is not None  # given by with_data
        content = item.page.render(site)
    elif isinstance(item, GraphOutput):
        assert item.data is not None
        points = graph_layout(run.store, item.data)
        content = graph_script(item.data, points, graph_communities(run.store, item.data))
    else:
        content = item.content
    write_file(staging, item.name, content)
    return Rendered({item.name: ""})


def _held(
    reuse: Reuse,
    value: Reusable[Hashable, _T],
    path: str,
    made_of: Hashable,
    make: Callable[[], _T],
) -> _T:
    return reuse.made(value, path, made_of, lambda _, __: make())


def _record(site: SiteContext, item: Planned, rendered: Rendered) -> Published:
    root = site.config.root
    copies = {path: stat_signature(root / path) for path in rendered.copies}
    files = tuple(sorted(set(rendered.files) | set(rendered.copies)))
    return Published(item.key, files, copies, rendered.diagnostics)


def _render(
    run: Run,
    site: SiteContext,
    staging: Path,
    stale: list[Planned],
    on_done: Callable[[int], None],
) -> dict[str, Published]:
    records: dict[str, Published] = {}
    pages = [item for item in stale if isinstance(item, PerPage)]
    by_item = {(item.kind, item.path): item for item in pages}

    def render_others() -> None:
        for item in stale:
            if not isinstance(item, PerPage):
                records[item.name] = _record(site, item, _render_other(run, site, staging, item))
                on_done(1)

    paths = [(item.kind, item.path) for item in pages]
    if run.workers.worth_forking(len(paths), _PARALLEL_THRESHOLD):
        chunks = [paths[r.start : r.stop] for r in chunked(len(paths), run.workers.jobs, 4)]
        # While the workers render pages, this process renders the indexes and the graph.
        done = run.workers.map(_render_pages, (site, staging), chunks, meanwhile=render_others)
    else:
        render_others()
        # Rendered here, the pages' frames and own fills are held for the next build (a save
        # that edits what they embed renders them again): of the pages rendered last alone.
        held = site.but(
            frames=partial(_held, run.reuse, FRAMES),
            own_fills=partial(_held, run.reuse, OWN_FILLS),
        )
        done = iter([_render_pages((held, staging), paths)])
        now = {path for _, path in paths}
        run.reuse.keep_only(FRAMES, now)
        run.reuse.keep_only(OWN_FILLS, now)
    for chunk in done:
        for made, rendered in chunk:
            records[by_item[made].name] = _record(site, by_item[made], rendered)
            on_done(1)
    return records
