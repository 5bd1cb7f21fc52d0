"""The output rows' files in the plan (``render/output_rows.py``): each keyed by the digest of
its content, a query on the run's engine, so a build makes again exactly the files whose
content changed; and their content when they are written."""

from __future__ import annotations

from kbtool.engine import WHOLE, Engine
from kbtool.engine.core import Unrecorded
from kbtool.engine.persist import load
from kbtool.render import output_rows
from kbtool.render.context import SiteContext
from kbtool.render.output_rows import LISTED, SITE, TYPE_LABEL, Content, SiteView
from kbtool.reuse.values import Reuse
from kbtool.stages.planned import RowOutput
from kbtool.stages.reused import LISTED_SET
from kbtool.store.db import Store
from kbtool.store.records import OUTPUT


def row_outputs(store: Store | None, site: SiteContext, reuse: Reuse) -> list[RowOutput]:
    """Every output row's files, each keyed by what it holds. The check set every page's
    path, card and text; this sets what lists show of each page and the site's title."""
    engine = reuse.engine
    page_rows, site_rows = output_rows.PAGE_ROWS, output_rows.SITE_ROWS
    if store is not None:
        queries = [row.query for row in page_rows] + [row.query for row in site_rows]
        load(engine, store, queries)
    # A listing the inputs were set from last time set them as it is: a session's save
    # sets those of the few listings made again, not of every page.
    held = reuse.held(LISTED_SET).get(WHOLE)
    set_from = held[1] if held is not None else {}
    for path, listing in site.listings.items():
        if set_from.get(path) is listing:
            continue
        card = listing.card
        shown = (card.title, card.type, card.summary, card.url)
        engine.set(LISTED, path, shown, "\x1f".join(shown))
    reuse.put(LISTED_SET, WHOLE, None, dict(site.listings))
    engine.set(SITE, WHOLE, site.title, site.title)
    for name, label in site.config.type_labels.items():
        engine.set(TYPE_LABEL, name, label, label)
    planned = []
    for page_row in page_rows:
        for path, digest in engine.get_all(page_row.query, site.wiki.pages).items():
            if digest:
                name = f"{page_row.name}:{path}"
                planned.append(
                    RowOutput(name, OUTPUT.key(digest), page_row.name, path, page_row.file(path))
                )
        engine.retain(page_row.query, site.wiki.pages)
    for site_row in site_rows:
        if digest := engine.get(site_row.query, WHOLE):
            planned.append(
                RowOutput(site_row.name, OUTPUT.key(digest), site_row.name, "", site_row.file)
            )
    return planned


def row_content(engine: Engine, item: RowOutput) -> Content:
    """The content of a row's file, made from what the engine holds now (as its key was)."""
    view = SiteView(Unrecorded(engine))
    for page_row in output_rows.PAGE_ROWS:
        if page_row.name == item.row:
            return page_row.make(view, item.path)
    for site_row in output_rows.SITE_ROWS:
        if site_row.name == item.row:
            return site_row.make(view)
    return None
