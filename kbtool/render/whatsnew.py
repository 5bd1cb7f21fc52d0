"""The what's new page (``changes.html``) and its Atom feed (``feed.xml``), from the
recent changes (:mod:`kbtool.render.changes`) and the pages' listings."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from kbtool.render import urls
from kbtool.render.changes import FEED_ENTRIES, entry_id, xml_text
from kbtool.render.context import SiteContext
from kbtool.render.indexes import IndexPage


def whatsnew_pages(site: SiteContext) -> list[IndexPage]:
    """``changes.html`` and ``feed.xml``."""
    return [_page(site), _feed(site)]


def _page(site: SiteContext) -> IndexPage:
    days = []
    for day, changes in groupby(site.changes, key=lambda c: c.day):
        entries = []
        for change in changes:
            item = site.listings[change.path]
            entries.append(
                {
                    "kind": change.kind,
                    "title": item.card.title,
                    "url": urls.href(urls.CHANGES, item.card.url),
                    "type": site.type_label(item.card.type),
                    "summary": item.card.summary,
                }
            )
        days.append({"day": day, "entries": entries})
    data = {"days": days, "from_history": any(c.kind != "updated" for c in site.changes)}
    return IndexPage(urls.CHANGES, "changes.html", site.t("changes_title"), data)


def _feed(site: SiteContext) -> IndexPage:
    """The feed: absolute links when ``base-url`` is set, else links relative to the feed
    (which a reader resolves against where it found the feed)."""
    base = site.config.base_url.rstrip("/") + "/" if site.config.base_url else ""
    entries: list[dict[str, Any]] = []
    for change in site.changes[:FEED_ENTRIES]:
        item = site.listings[change.path]
        label = site.t("change_" + change.kind)
        entries.append(
            {
                "id": entry_id(base, item.card.url, change.day, change.kind),
                "title": xml_text(f"{label}: {item.card.title}"),
                "url": base + urls.href(urls.FEED, item.card.url),
                "updated": f"{change.day}T00:00:00Z",
                "summary": xml_text(item.card.summary),
            }
        )
    data = {
        "feed_id": entry_id(base, urls.FEED, "", site.title),
        "site_url": base + urls.HOME,
        "feed_url": base + urls.FEED,
        "feed_title": xml_text(f"{site.title} · {site.t('changes_title')}"),
        "updated": entries[0]["updated"] if entries else "1970-01-01T00:00:00Z",
        "entries": entries,
    }
    return IndexPage(urls.FEED, "feed.xml", site.t("changes_title"), data)
